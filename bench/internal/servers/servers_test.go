package servers

import (
	"testing"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// TestScenarios checks in-process that every registered server answers each
// of its scenarios correctly.
func TestScenarios(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name(), func(t *testing.T) {
			in, err := s.Start(t.Context())
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			defer in.Shutdown()
			for _, sc := range s.Scenarios() {
				c, err := newCaller(t.Context(), in.Header, sc.Body)
				if err != nil {
					t.Fatal(err)
				}
				for range 2 { // the second call exercises any per-handler caching
					r := c.call(in.Handler)
					if err := sc.Check(r); err != nil {
						t.Errorf("%s: %v", sc.Name, err)
					}
					if err := scenario.FastCheck(r.Status, r.Body); err != nil {
						t.Errorf("%s: fast check: %v", sc.Name, err)
					}
				}
			}
		})
	}
}

// BenchmarkServers measures each server's handler in-process, without a
// network, for every scenario. Run with -benchmem to compare allocations:
//
//	go test ./bench/internal/servers -run '^$' -bench . -benchmem
func BenchmarkServers(b *testing.B) {
	for _, s := range All() {
		in, err := s.Start(b.Context())
		if err != nil {
			b.Fatalf("%s: start: %v", s.Name(), err)
		}
		b.Cleanup(func() { _ = in.Shutdown() })
		for _, sc := range s.Scenarios() {
			b.Run(benchName(sc.Name)+"/"+s.Name(), func(b *testing.B) {
				c, err := newCaller(b.Context(), in.Header, sc.Body)
				if err != nil {
					b.Fatal(err)
				}
				if err := sc.Check(c.call(in.Handler)); err != nil {
					b.Fatalf("sanity check: %v", err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if r := c.call(in.Handler); r.Status != 200 {
						b.Fatalf("HTTP %d: %s", r.Status, r.Body)
					}
				}
			})
		}
	}
}

// benchName makes a scenario name usable as a sub-benchmark name.
func benchName(s string) string {
	if s == scenario.ToolsList {
		return "tools_list"
	}
	return s
}
