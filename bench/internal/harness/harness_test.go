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
// checks that every server answered every scenario correctly. It asserts
// correctness only, not speed.
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
		}
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, sc := range rep.Scenarios {
		if !strings.Contains(md.String(), "### "+sc) {
			t.Errorf("markdown lacks a table for %s", sc)
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
			tg := target{client: srv.Client(), url: srv.URL, header: http.Header{}, body: []byte(`{}`)}
			_, err := runLoad(t.Context(), tg, 4, phase{requests: 1000, duration: 10 * time.Second})
			if err == nil {
				t.Fatal("load succeeded despite a failed request")
			}
		})
	}
}
