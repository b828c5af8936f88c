// Package loadtest drives Takhtabush the way many agents at once would
// (issue 10 §4.4, issue 12 §4): concurrent agents, each with its own
// account and API key, start study sessions and submit reviews through
// /mcp (plain HTTP JSON-RPC, stateless Streamable HTTP) against real
// server processes on loopback, for a bounded time and a bounded number
// of calls. Afterwards it checks that nothing was lost: every
// acknowledged review is a review-log row, every acknowledged mutation an
// audit row, and no call answered 5xx. It reports throughput, latency
// percentiles and the CPU each request cost in the instances, in
// Postgres and in pgbouncer.
//
// A run tries one or more configurations (Setups): SQLite with one
// instance; Postgres with N instances (behind an in-process round-robin
// HTTP proxy when N > 1); Postgres through pgbouncer in transaction
// pooling mode, started by the harness on a free port with a generated
// configuration.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/adapters/pgbouncer"
)

// Config is one load test run.
type Config struct {
	// Setups are the configurations to try, in order (see ParseSetup).
	Setups []Setup
	// Agents is the number of concurrent agents (default 50).
	Agents int
	// Duration bounds each configuration's load phase (default 60 s).
	Duration time.Duration
	// MaxCalls bounds the calls of each configuration's load phase
	// (default 1,000,000): the run stops at whichever limit comes first.
	MaxCalls int
	// CardsPerAgent is how many new cards each agent's deck starts with
	// (default 200); an agent that has studied them all crams.
	CardsPerAgent int
	// PostgresURL is the server the Postgres configurations create their
	// databases on (each run gets a fresh database, dropped afterwards).
	PostgresURL string
	// Spawn starts one server process (see SpawnFunc).
	Spawn SpawnFunc
	// Pgbouncer is the pgbouncer binary (default /usr/sbin/pgbouncer).
	Pgbouncer string
	// Log receives progress; nil discards it.
	Log io.Writer
	// Sample, when set, makes the run a soak (see soak.go): the figures
	// that show a leak or an unbounded log are sampled this often, and a
	// configuration fails when one of them grows without bound. A soak
	// may run up to 2 hours.
	Sample time.Duration
}

// Setup is one configuration: a database kind and a number of instances.
type Setup struct {
	Name      string // as given, e.g. "pg-x2"
	DB        string // "sqlite", "postgres" or "pgbouncer"
	Instances int
}

// ParseSetup reads a configuration name: sqlite, pg, pg-xN (N instances
// on one Postgres behind a round-robin proxy), pgbouncer or
// pgbouncer-xN.
func ParseSetup(name string) (Setup, error) {
	base, n, hasN := strings.Cut(name, "-x")
	s := Setup{Name: name, Instances: 1}
	if hasN {
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 || k > 16 {
			return s, fmt.Errorf("configuration %q: the instance count after -x must be 1 to 16", name)
		}
		s.Instances = k
	}
	switch base {
	case "sqlite":
		if s.Instances != 1 {
			return s, fmt.Errorf("configuration %q: SQLite serves one instance", name)
		}
		s.DB = "sqlite"
	case "pg", "postgres":
		s.DB = "postgres"
	case "pgbouncer":
		s.DB = "pgbouncer"
	default:
		return s, fmt.Errorf("unknown configuration %q (sqlite, pg, pg-xN, pgbouncer, pgbouncer-xN)", name)
	}
	return s, nil
}

func (c *Config) defaults() error {
	if c.Agents <= 0 {
		c.Agents = 50
	}
	if c.Duration <= 0 {
		c.Duration = 60 * time.Second
	}
	if c.MaxCalls <= 0 {
		c.MaxCalls = 1_000_000
	}
	if c.CardsPerAgent <= 0 {
		c.CardsPerAgent = 200
	}
	if c.Pgbouncer == "" {
		c.Pgbouncer = pgbouncer.DefaultBinary
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Spawn == nil {
		return errors.New("loadtest: Config.Spawn is required")
	}
	longest := 10 * time.Minute
	if c.Sample > 0 {
		longest = 2 * time.Hour
	}
	if c.Duration > longest || c.Agents > 500 {
		return fmt.Errorf("loadtest: at most 500 agents for at most %s", longest)
	}
	return nil
}

func (c *Config) logf(format string, args ...any) { fmt.Fprintf(c.Log, format+"\n", args...) }

// Run tries every configuration in turn and returns their results. A
// configuration that cannot run (no Postgres URL, no pgbouncer) is
// reported as skipped with the reason; one whose checks fail has
// Failures. The error is for the run as a whole (bad configuration, the
// context ended).
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var out []Result
	for _, s := range cfg.Setups {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		cfg.logf("== %s: %d agents for %s", s.Name, cfg.Agents, cfg.Duration)
		r := runSetup(ctx, cfg, s)
		out = append(out, r)
		cfg.logf("%s", r.Line())
	}
	return out, nil
}

// runSetup runs one configuration from set-up to clean-up.
func runSetup(ctx context.Context, cfg Config, s Setup) Result {
	r := Result{Setup: s, Agents: cfg.Agents}
	if s.DB != "sqlite" && cfg.PostgresURL == "" {
		r.Skipped = "no Postgres URL (set TAKHTABUSH_TEST_POSTGRES_URL)"
		return r
	}
	if s.DB == "pgbouncer" {
		if _, err := os.Stat(cfg.Pgbouncer); err != nil {
			r.Skipped = "pgbouncer is not installed at " + cfg.Pgbouncer
			return r
		}
	}
	env, err := prepare(ctx, cfg, s)
	if env != nil {
		defer env.close()
	}
	if err != nil {
		r.Failures = append(r.Failures, "set-up: "+err.Error())
		return r
	}
	before, err := env.counts(ctx) // opens env.check, which start uses
	if err != nil {
		r.Failures = append(r.Failures, "counting before: "+err.Error())
		return r
	}
	if err := env.start(ctx, cfg, s); err != nil {
		r.Failures = append(r.Failures, "start: "+err.Error())
		return r
	}
	cpu0 := env.cpu(ctx)
	var samples chan []SoakSample
	stop := make(chan struct{})
	if cfg.Sample > 0 {
		env.window = &latencyWindow{}
		samples = make(chan []SoakSample, 1)
		go func() { samples <- soak(ctx, cfg, env, stop) }()
	}
	load := drive(ctx, cfg, env)
	cpu1 := env.cpu(ctx)
	close(stop)
	if samples != nil {
		r.Soak = <-samples
		r.Failures = append(r.Failures, unbounded(r.Soak)...)
		if env.kind == "sqlite" {
			r.IdleLog, r.IdleAfter = env.idleLog(ctx)
			if r.IdleLog >= 16<<20 {
				r.Failures = append(r.Failures, fmt.Sprintf("soak: the log is still %d MiB a minute after the load", r.IdleLog>>20))
			}
		}
	}
	after, err := env.counts(ctx)
	if err != nil {
		r.Failures = append(r.Failures, "counting after: "+err.Error())
		return r
	}
	r.fill(load, cpu1.minus(cpu0))
	r.check(load, after.minus(before))
	return r
}
