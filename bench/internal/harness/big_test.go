package harness

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// TestBigQuick runs the big-account read measurement on a tiny account
// (SQLite, and Postgres when TAKHTABUSH_TEST_POSTGRES_URL is set): every
// read tool's answer passes its check (five decks with cards, one card for
// the rare word, a full page for the common one) and is measured. It
// asserts correctness and plausible counters, never speed.
func TestBigQuick(t *testing.T) {
	cfg := BigConfig{Cards: 200, Workers: 2, Requests: 6, WarmupRequests: 2,
		Duration: 30 * time.Second, Warmup: 10 * time.Second, Spawn: testSpawn}
	rep, err := RunBig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers.Big() {
		if _, ok := rep.NotRun[s.Name()]; ok {
			continue
		}
		for _, sc := range scenario.BigRead() {
			i := slices.IndexFunc(rep.Rows, func(r BigRow) bool { return r.Server == s.Name() && r.Scenario == sc.Name })
			if i < 0 {
				t.Errorf("%s / %s: not measured", s.Name(), sc.Name)
				continue
			}
			r := rep.Rows[i]
			if r.Requests != cfg.Requests || r.AppCPU <= 0 || r.P50 <= 0 || r.P99 < r.P50 || r.Stmts < 1 || r.GoalCPU <= 0 {
				t.Errorf("%s / %s: implausible row %+v", s.Name(), sc.Name, r)
			}
			if s.Name() == "bigread" && r.DBCPU != 0 {
				t.Errorf("%s / %s: database CPU %v on SQLite", s.Name(), sc.Name, r.DBCPU)
			}
		}
	}
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "| bigread | search_cards rare |") {
		t.Errorf("report lacks the SQLite rows:\n%s", buf.String())
	}
}
