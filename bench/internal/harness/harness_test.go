package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// childEnv makes the test binary act as a server child, the way mcpbench
// re-executes itself with -serve.
const childEnv = "MCPBENCH_TEST_SERVE"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		if err := Serve(context.Background(), name, "127.0.0.1:0", os.Stdout, os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testSpawn(server string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+server)
	return cmd
}

// TestQuickRun runs the whole harness in quick mode with tiny counts and
// checks that every server, the full stack included, answered every
// scenario correctly, and that the full stack's audit rows matched its
// mutating calls. It asserts correctness only, never speed: whether a goal
// was met is reported, not tested.
func TestQuickRun(t *testing.T) {
	cfg := Quick()
	cfg.Requests = 40
	cfg.WarmupRequests = 10
	cfg.Spawn = testSpawn
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers.All() {
		if _, ok := rep.NotRun[s.Name()]; ok {
			continue
		}
		info := rep.Servers[slices.IndexFunc(rep.Servers, func(i ServerInfo) bool { return i.Name == s.Name() })]
		for _, sc := range s.Scenarios() {
			if !slices.Contains(info.Checked, sc.Name) {
				t.Errorf("%s / %s: sanity check did not pass", s.Name(), sc.Name)
			}
			c, ok := rep.Cell(sc.Name, s.Name())
			if !ok {
				t.Errorf("%s / %s: no measurement", s.Name(), sc.Name)
				continue
			}
			if c.Median.RPS <= 0 || c.Median.Allocs <= 0 || c.Median.P50Micros <= 0 {
				t.Errorf("%s / %s: implausible figures %+v", s.Name(), sc.Name, c.Median)
			}
			if s.Name() != cfg.Baseline && c.Ratio == nil {
				t.Errorf("%s / %s: no ratio to %s", s.Name(), sc.Name, cfg.Baseline)
			}
			if c.BaselineScenario != sc.BaselineScenario() || len(sc.Goals) != len(c.Goals) {
				t.Errorf("%s / %s: baseline %q, goals %+v", s.Name(), sc.Name, c.BaselineScenario, c.Goals)
			}
			for _, g := range c.Goals {
				if g.NotRun == "" && (g.AgainstCPU <= 0 || g.Ratio <= 0) {
					t.Errorf("%s / %s: goal %+v has no ratio", s.Name(), sc.Name, g)
				}
			}
			if strings.HasPrefix(s.Name(), "fullstack") || strings.HasPrefix(s.Name(), "dbfloor") {
				if c.Median.Statements <= 0 {
					t.Errorf("%s / %s: no statements counted", s.Name(), sc.Name)
				}
			}
			if info.Calls[sc.Name] < 1+c.Rounds {
				t.Errorf("%s / %s: %d calls counted", s.Name(), sc.Name, info.Calls[sc.Name])
			}
		}
	}
	full := rep.Servers[slices.IndexFunc(rep.Servers, func(i ServerInfo) bool { return i.Name == "fullstack" })]
	wantAudit := fmt.Sprintf("%d = %d submit_review + %d add_cards", full.Calls[scenario.SubmitReview]+full.Calls[scenario.AddCards],
		full.Calls[scenario.SubmitReview], full.Calls[scenario.AddCards])
	if !strings.Contains(full.Verified, wantAudit) {
		t.Errorf("fullstack verification %q does not count %s audit rows", full.Verified, wantAudit)
	}
	t.Log(full.Verified)
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range append(slices.Clone(rep.Scenarios), "Goals", "Verified after the run") {
		if !strings.Contains(md.String(), "### "+want) {
			t.Errorf("markdown lacks a section %s", want)
		}
	}
	if !strings.Contains(md.String(), "divide by **floor** on **echo**") {
		t.Error("markdown does not say the mutating calls are compared with the floor's echo")
	}
}

// TestQuotas checks how a scenario's prepared calls are shared out over
// the run's phases.
func TestQuotas(t *testing.T) {
	cfg := Default() // 3 rounds × (3000 warm-up + 30000) + 1 = 99001 calls
	if got := cfg.maxCalls(); got != 99001 {
		t.Fatalf("maxCalls = %d", got)
	}
	for _, tc := range []struct{ capacity, warm, measure int }{
		{0, 3000, 30000},
		{99001, 3000, 30000},
		{10000, 666, 2667},
		{4, 0, 1},
		{3, 0, 0},
	} {
		warm, measure := cfg.quotas(tc.capacity)
		if warm != tc.warm || measure != tc.measure {
			t.Errorf("quotas(%d) = %d, %d; want %d, %d", tc.capacity, warm, measure, tc.warm, tc.measure)
		}
		if tc.capacity > 0 && 1+cfg.Rounds*(warm+measure) > tc.capacity {
			t.Errorf("quotas(%d) overspend: %d", tc.capacity, 1+cfg.Rounds*(warm+measure))
		}
	}
}

// TestStartFailure checks that a server that cannot start fails the run.
func TestStartFailure(t *testing.T) {
	cfg := Quick()
	cfg.Servers = []string{"floor"}
	cfg.Spawn = func(string) *exec.Cmd { return testSpawn("no-such-server") }
	if _, err := Run(t.Context(), cfg); err == nil {
		t.Fatal("run with a server that cannot start succeeded")
	}
}

// TestLoadAbortsOnError checks that one JSON-RPC error or non-2xx answer
// under load stops the phase with an error.
func TestLoadAbortsOnError(t *testing.T) {
	for name, reply := range map[string]func(w http.ResponseWriter){
		"jsonrpc error": func(w http.ResponseWriter) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`)
		},
		"http 500": func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusInternalServerError) },
		"tool error": func(w http.ResponseWriter) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError": true}}`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 25 {
					reply(w)
					return
				}
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			}))
			defer srv.Close()
			tg := target{client: srv.Client(), url: srv.URL, header: http.Header{}, body: scenario.Fixed([]byte(`{}`)), seq: new(atomic.Int64)}
			_, err := runLoad(t.Context(), tg, 4, phase{requests: 1000, duration: 10 * time.Second})
			if err == nil {
				t.Fatal("load succeeded despite a failed request")
			}
		})
	}
}

// BenchmarkNextBody measures what per-call bodies add to each request of
// the load loop for a fixed-body scenario: an atomic increment and a call
// through the BodyFunc, shared by concurrent workers (a loopback request
// costs tens of microseconds).
func BenchmarkNextBody(b *testing.B) {
	t := target{body: scenario.Fixed([]byte(`{}`)), seq: new(atomic.Int64)}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if len(t.nextBody()) != 2 {
				b.Fatal("wrong body")
			}
		}
	})
}
