package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// BigConfig configures a big-account read run (issue 12 §3).
type BigConfig struct {
	// Servers are the big-account servers to run (default servers.Big()).
	Servers []string
	// Cards is the account size the children seed.
	Cards int
	// Workers is the number of concurrent clients (4 in the issue).
	Workers int
	// Warmup and WarmupRequests bound each scenario's warm-up phase;
	// Duration and Requests its measured phase.
	Warmup         time.Duration
	WarmupRequests int
	Duration       time.Duration
	Requests       int
	// Spawn starts a child process serving the named server.
	Spawn SpawnFunc
	// Log, when set, receives progress lines.
	Log io.Writer
}

// BigRow is one read tool measured on one server.
type BigRow struct {
	Server   string  `json:"server"`
	Scenario string  `json:"scenario"`
	Requests int     `json:"requests"`
	AppCPU   float64 `json:"appCpuMicros"` // the app process's CPU per call
	DBCPU    float64 `json:"dbCpuMicros"`  // the database backends' CPU per call (Postgres)
	P50      float64 `json:"p50Micros"`
	P99      float64 `json:"p99Micros"`
	Stmts    float64 `json:"statements"`
	GoalCPU  float64 `json:"goalCpuMicros"`
}

// CPU is the call's whole server CPU: app plus database.
func (r BigRow) CPU() float64 { return r.AppCPU + r.DBCPU }

// Met says whether the row meets its goal.
func (r BigRow) Met() bool { return r.CPU() <= r.GoalCPU }

// BigReport is the outcome of RunBig.
type BigReport struct {
	Cards   int               `json:"cards"`
	Workers int               `json:"workers"`
	Rows    []BigRow          `json:"rows"`
	NotRun  map[string]string `json:"notRun,omitempty"`
}

// RunBig starts each big-account server in its own child (which seeds
// the account before it reports ready), checks one answer of every read
// tool in full, then for each tool warms it up and measures it under
// Workers concurrent keep-alive clients between two reads of the child's
// counters: app CPU (getrusage), database backend CPU (Postgres) and
// statements per call, and the latency percentiles.
func RunBig(ctx context.Context, cfg BigConfig) (rep *BigReport, err error) {
	if cfg.Workers < 1 || cfg.Requests < 1 || cfg.Duration <= 0 || cfg.Spawn == nil {
		return nil, errors.New("bigread: workers, requests, duration and spawn are required")
	}
	all := servers.Big()
	if len(cfg.Servers) > 0 {
		all = nil
		for _, n := range cfg.Servers {
			s, err := servers.Lookup(n)
			if err != nil {
				return nil, err
			}
			all = append(all, s)
		}
	}
	rep = &BigReport{Cards: cfg.Cards, Workers: cfg.Workers, NotRun: map[string]string{}}
	goals := map[string]float64{}
	for _, g := range scenario.BigGoals() {
		goals[g.Scenario] = g.MaxCPUMicros
	}
	logCfg := Config{Log: cfg.Log}
	for _, s := range all {
		if o, ok := s.(servers.Optional); ok && o.Unavailable() != "" {
			rep.NotRun[s.Name()] = o.Unavailable()
			logCfg.logf("not running %s: %s", s.Name(), o.Unavailable())
			continue
		}
		rows, err := runBigServer(ctx, cfg, logCfg, s, goals)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	return rep, nil
}

// bigReadyTimeout bounds seeding (100,000 cards on Postgres take minutes on a busy 2-core machine).
const bigReadyTimeout = 15 * time.Minute

func runBigServer(ctx context.Context, cfg BigConfig, logCfg Config, s servers.Server, goals map[string]float64) (rows []BigRow, err error) {
	t0 := time.Now()
	spawn := func(name string) *exec.Cmd {
		cmd := cfg.Spawn(name)
		cmd.Env = append(cmd.Environ(), fmt.Sprintf("%s=%d", servers.BigCardsEnv, cfg.Cards))
		return cmd
	}
	c, err := startChildTimeout(spawn, s.Name(), cfg.Workers, 0, bigReadyTimeout)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, c.stop()) }()
	logCfg.logf("started %s at %s: %d cards seeded in %.1f s", s.Name(), c.base, cfg.Cards, time.Since(t0).Seconds())
	// bind uses the report only for scenarios with a capacity; reads have none.
	if err := c.bind(Config{}, nil, s); err != nil {
		return nil, err
	}
	for _, sc := range c.scenarios {
		if err := sanityCheck(ctx, c.targets[sc.Name], sc); err != nil {
			return nil, fmt.Errorf("sanity check %s / %s: %w", s.Name(), sc.Name, err)
		}
	}
	for _, sc := range c.scenarios {
		t := c.targets[sc.Name]
		if _, err := runLoad(ctx, t, cfg.Workers, phase{cfg.WarmupRequests, cfg.Warmup}); err != nil {
			return nil, fmt.Errorf("%s / %s warm-up: %w", s.Name(), sc.Name, err)
		}
		before, err := c.stats()
		if err != nil {
			return nil, err
		}
		res, err := runLoad(ctx, t, cfg.Workers, phase{cfg.Requests, cfg.Duration})
		if err != nil {
			return nil, fmt.Errorf("%s / %s: %w", s.Name(), sc.Name, err)
		}
		after, err := c.stats()
		if err != nil {
			return nil, err
		}
		if res.ok == 0 {
			return nil, fmt.Errorf("%s / %s: no request completed", s.Name(), sc.Name)
		}
		n := float64(res.ok)
		slices.Sort(res.latencies)
		r := BigRow{Server: s.Name(), Scenario: sc.Name, Requests: res.ok,
			AppCPU:  float64(after.CPUNanos-before.CPUNanos) / 1e3 / n,
			DBCPU:   float64(after.DBCPUNanos-before.DBCPUNanos) / 1e3 / n,
			P50:     micros(percentile(res.latencies, 0.50)),
			P99:     micros(percentile(res.latencies, 0.99)),
			Stmts:   float64(after.Statements-before.Statements) / n,
			GoalCPU: goals[sc.Name]}
		rows = append(rows, r)
		logCfg.logf("%-12s %-20s %6d calls  app %8.0f µs  db %8.0f µs CPU/call  p50 %8.0f µs  p99 %8.0f µs  %5.1f stmts",
			r.Server, r.Scenario, r.Requests, r.AppCPU, r.DBCPU, r.P50, r.P99, r.Stmts)
	}
	return rows, nil
}

// WriteMarkdown writes the report's table with the goals.
func (r *BigReport) WriteMarkdown(w io.Writer) error {
	p := &errWriter{w: w}
	p.printf("# Read tools on a big account (issue 12 §3)\n\n")
	p.printf("One account of %d cards in %d decks with a review history; %d concurrent clients over HTTP /mcp with an API key. "+
		"CPU per call is server CPU when warm: the app process's (getrusage) plus, on Postgres, its backends' (/proc/PID/stat of the database's connections in pg_stat_activity).\n\n",
		r.Cards, servers.BigDecks, r.Workers)
	p.printf("| server | tool | calls | app CPU ms/call | db CPU ms/call | total CPU ms/call | goal ms | p50 ms | p99 ms | stmts/call | goal |\n")
	p.printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, row := range r.Rows {
		met := "met"
		if !row.Met() {
			met = "**missed**"
		}
		p.printf("| %s | %s | %d | %.2f | %.2f | %.2f | ≤ %.0f | %.2f | %.2f | %.1f | %s |\n", row.Server, row.Scenario, row.Requests,
			row.AppCPU/1e3, row.DBCPU/1e3, row.CPU()/1e3, row.GoalCPU/1e3, row.P50/1e3, row.P99/1e3, row.Stmts, met)
	}
	names := make([]string, 0, len(r.NotRun))
	for n := range r.NotRun {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p.printf("| %s | every tool | not run: %s | | | | | | | | **missed** |\n", n, r.NotRun[n])
	}
	return p.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
