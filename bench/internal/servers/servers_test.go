package servers

import (
	"testing"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// start starts s in-process and binds its scenarios; the instance shuts
// down when the test ends.
func start(tb testing.TB, s Server, opts Options) (*Instance, []scenario.Scenario) {
	tb.Helper()
	in, err := s.Start(tb.Context(), opts)
	if err != nil {
		tb.Fatalf("%s: start: %v", s.Name(), err)
	}
	tb.Cleanup(func() {
		if err := in.Shutdown(); err != nil {
			tb.Errorf("%s: shutdown: %v", s.Name(), err)
		}
	})
	scs, err := Bound(s.Scenarios(), in.Setup)
	if err != nil {
		tb.Fatalf("%s: bind: %v", s.Name(), err)
	}
	return in, scs
}

// TestScenarios checks in-process that every registered server answers each
// of its scenarios correctly, and passes its own end-of-run verification.
func TestScenarios(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name(), func(t *testing.T) {
			if o, ok := s.(Optional); ok && o.Unavailable() != "" {
				t.Skip(o.Unavailable())
			}
			in, scs := start(t, s, Options{})
			calls := map[string]int{}
			for _, sc := range scs {
				c, err := newCaller(t.Context(), in.HeaderFor(sc.Name))
				if err != nil {
					t.Fatal(err)
				}
				for i := range 2 { // the second call exercises any per-handler caching
					r := c.call(in.Handler, sc.Body(i))
					calls[sc.Name]++
					if err := sc.Check(r); err != nil {
						t.Errorf("%s: %v", sc.Name, err)
					}
					if err := scenario.FastCheck(r.Status, r.Body); err != nil {
						t.Errorf("%s: fast check: %v", sc.Name, err)
					}
				}
			}
			if in.Verify != nil {
				msg, err := in.Verify(t.Context(), calls)
				if err != nil {
					t.Fatalf("verify: %v", err)
				}
				t.Log(msg)
			}
		})
	}
}

// BenchmarkServers measures each server's handler in-process, without a
// network, for every scenario. Run with -benchmem to compare allocations:
//
//	go test ./bench/internal/servers -run '^$' -bench . -benchmem
//
// Every run of a sub-benchmark starts a fresh server sized for b.N calls
// (the full stack seeds b.N pending reviews for submit_review before the
// timer starts), so a
// CPU profile of the full stack is best taken with a fixed count, and read
// with the seeding left out:
//
//	go test ./bench/internal/servers -run '^$' -bench 'Servers/submit_review/fullstack' \
//	    -benchtime 20000x -cpuprofile cpu.out
//	go tool pprof -top -focus ServeHTTP cpu.out
func BenchmarkServers(b *testing.B) {
	for _, s := range All() {
		for _, sc := range s.Scenarios() {
			b.Run(benchName(sc.Name)+"/"+s.Name(), func(b *testing.B) {
				if o, ok := s.(Optional); ok && o.Unavailable() != "" {
					b.Skip(o.Unavailable())
				}
				benchScenario(b, s, sc.Name)
			})
		}
	}
}

// benchScenario measures b.N calls of one scenario after a checked first
// call, then runs the server's own verification (which, for the full
// stack, also catches a failed call through its audit row).
func benchScenario(b *testing.B, s Server, name string) {
	in, scs := start(b, s, Options{Calls: map[string]int{name: b.N + 1}})
	if n := in.Setup[name].Capacity; n > 0 && n < b.N+1 {
		b.Fatalf("%s prepared %d calls of %s; run at most -benchtime %dx", s.Name(), n, name, n-1)
	}
	var sc scenario.Scenario
	for _, x := range scs {
		if x.Name == name {
			sc = x
		}
	}
	c, err := newCaller(b.Context(), in.HeaderFor(name))
	if err != nil {
		b.Fatal(err)
	}
	if err := sc.Check(c.call(in.Handler, sc.Body(0))); err != nil {
		b.Fatalf("sanity check: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var r *scenario.Response
	for i := 1; i <= b.N; i++ {
		if r = c.call(in.Handler, sc.Body(i)); r.Status != 200 {
			b.Fatalf("HTTP %d: %s", r.Status, r.Body)
		}
	}
	b.StopTimer()
	if err := scenario.FastCheck(r.Status, r.Body); err != nil {
		b.Fatalf("last call: %v", err)
	}
	if in.Verify != nil {
		if _, err := in.Verify(b.Context(), map[string]int{name: b.N + 1}); err != nil {
			b.Fatalf("verify: %v", err)
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
