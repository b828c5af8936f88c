package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// LogCost is what a run of one tool's calls wrote (issue 29 §1.4).
type LogCost struct {
	Setup string
	Tool  string
	Calls int
	// PerCall is the bytes written per call: on Postgres the write-ahead
	// log records of the run's database (pg_walinspect: records whose
	// blocks are in it, and the other records of their transactions); on
	// SQLite the bytes the server process wrote to storage (/proc/PID/io
	// write_bytes: the log and the checkpoint's copy of its pages into the
	// database file).
	PerCall float64
	What    string
}

// MeasureLogCost makes n calls of add_cards (one card each), then n of
// start_study_session, then n of submit_review (starting a session when
// one ends, about one call in a hundred) as one agent, on each setup's
// single instance, and reports the bytes each tool's calls wrote.
func MeasureLogCost(ctx context.Context, cfg Config, n int) ([]LogCost, error) {
	cfg.Agents, cfg.CardsPerAgent = 1, n+200
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var out []LogCost
	for _, s := range cfg.Setups {
		if s.DB != "sqlite" && s.DB != "postgres" || s.Instances != 1 {
			return out, fmt.Errorf("log cost: configuration %q: sqlite or pg, one instance", s.Name)
		}
		costs, err := logCost(ctx, cfg, s, n)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.Name, err)
		}
		out = append(out, costs...)
	}
	return out, nil
}

func logCost(ctx context.Context, cfg Config, s Setup, n int) ([]LogCost, error) {
	e, err := prepare(ctx, cfg, s)
	if e != nil {
		defer e.close()
	}
	if err != nil {
		return nil, err
	}
	if _, err := e.counts(ctx); err != nil { // opens e.check
		return nil, err
	}
	if err := e.start(ctx, cfg, s); err != nil {
		return nil, err
	}
	m, err := newMeter(ctx, e)
	if err != nil {
		return nil, err
	}
	a := &agent{acct: e.agents[0], e: e, rng: rand.New(rand.NewPCG(1, 42)), out: loadOutcome{acked: map[string]int{}, toolErrs: map[string]int{}, status: map[int]int{}}}
	phases := []struct {
		tool string
		call func() bool
	}{
		{"add_cards", func() bool {
			_, ok := a.call(ctx, "add_cards", map[string]any{"deckId": a.acct.deckID, "cards": []map[string]any{{"front": "Logged question " + strconv.Itoa(a.id), "back": "Answer"}}})
			return ok
		}},
		{toolStart, func() bool {
			_, ok := a.call(ctx, toolStart, map[string]any{"deckId": a.acct.deckID, "newLimit": 100})
			return ok
		}},
		{toolReview, func() bool {
			for a.card == "" {
				a.step(ctx) // starts a session
				if ctx.Err() != nil {
					return false
				}
			}
			before := a.out.acked[toolReview]
			a.step(ctx)
			return a.out.acked[toolReview] > before
		}},
	}
	var out []LogCost
	for _, p := range phases {
		if err := m.mark(ctx); err != nil {
			return nil, err
		}
		for i := range n {
			if !p.call() {
				return nil, fmt.Errorf("%s call %d failed: %v", p.tool, i+1, a.out.samples)
			}
		}
		bytes, what, err := m.since(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, LogCost{Setup: s.Name, Tool: p.tool, Calls: n, PerCall: float64(bytes) / float64(n), What: what})
		cfg.logf("%s %s: %d calls, %.0f bytes a call (%s)", s.Name, p.tool, n, float64(bytes)/float64(n), what)
	}
	return out, nil
}

// meter measures the bytes written since its mark.
type meter struct {
	e    *env
	from int64  // write_bytes (SQLite)
	lsn  string // pg_current_wal_lsn (Postgres)
	db   int64  // the database's oid (Postgres)
}

func newMeter(ctx context.Context, e *env) (*meter, error) {
	m := &meter{e: e}
	if e.kind == "postgres" {
		if _, err := e.check.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err != nil {
			return nil, fmt.Errorf("pg_walinspect: %w", err)
		}
		if err := e.check.QueryRowContext(ctx, `SELECT oid FROM pg_database WHERE datname = current_database()`).Scan(&m.db); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// mark starts a measurement.
func (m *meter) mark(ctx context.Context) error {
	if m.e.kind == "postgres" {
		return m.e.check.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&m.lsn)
	}
	time.Sleep(2 * time.Second) // the last phase's checkpoint lands before the mark
	m.from = writeBytes(m.e.procs[0].pid())
	return nil
}

// since returns the bytes written since the mark and what they are.
func (m *meter) since(ctx context.Context) (int64, string, error) {
	if m.e.kind == "postgres" {
		var n int64
		err := m.e.check.QueryRowContext(ctx, `
WITH r AS (SELECT * FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_lsn())),
     mine AS (SELECT DISTINCT xid FROM r WHERE block_ref LIKE $2 AND xid <> '0')
SELECT coalesce(sum(record_length), 0) FROM r WHERE block_ref LIKE $2 OR xid IN (SELECT xid FROM mine)`,
			m.lsn, fmt.Sprintf("%%/%d/%%", m.db)).Scan(&n)
		return n, "WAL records of the database", err
	}
	time.Sleep(2 * time.Second) // the phase's last checkpoint
	return writeBytes(m.e.procs[0].pid()) - m.from, "log and checkpoint bytes written to storage", nil
}

// writeBytes reads write_bytes from /proc/PID/io.
func writeBytes(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	return ioField(f, "write_bytes")
}

func ioField(r io.Reader, field string) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+": "); ok {
			n, _ := strconv.ParseInt(rest, 10, 64)
			return n
		}
	}
	return 0
}

// WriteLogCost prints the log costs as a table.
func WriteLogCost(w io.Writer, costs []LogCost) {
	fmt.Fprintln(w, "| configuration | tool | calls | bytes a call | what |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range costs {
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %s |\n", c.Setup, c.Tool, c.Calls, c.PerCall, c.What)
	}
}
