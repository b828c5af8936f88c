// Command loadtest runs many concurrent agents against Takhtabush on
// loopback and checks that nothing was lost (issue 10 §4.4): each agent
// starts study sessions and submits reviews through /mcp; afterwards
// every acknowledged review must be a review-log row, every acknowledged
// mutation an audit row, and no call may have answered 5xx. It prints
// throughput, p50/p99 and CPU per call for each configuration, and exits
// 1 when a check fails.
//
// Each instance is a server process (this binary re-executed with
// -serve). The Postgres configurations create a fresh database on the
// server of TAKHTABUSH_TEST_POSTGRES_URL (or -postgres) and drop it
// afterwards; pgbouncer is started on a free port with a generated
// configuration.
//
// Usage:
//
//	go run ./bench/cmd/loadtest                                  # every configuration, 50 agents, 60 s each
//	go run ./bench/cmd/loadtest -duration 15s                    # the smoke run
//	go run ./bench/cmd/loadtest -configs pg,pg-x2,pg-x4 -duration 30s   # scale with instances
//	go run ./bench/cmd/loadtest -configs sqlite,pg -agents 40 -duration 1h -soak 10s   # soak (make soak)
//	go run ./bench/cmd/loadtest -configs sqlite,pg -logcost 300   # log bytes per call (make logcost)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/loadtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		serve    = flag.Bool("serve", false, "child mode: serve -db on a free loopback port (used by the load test itself)")
		db       = flag.String("db", "", "child mode: the database URL")
		media    = flag.String("media", "", "child mode: the media directory")
		configs  = flag.String("configs", "sqlite,pg,pg-x2,pgbouncer", "configurations to run, in order: sqlite, pg, pg-xN (N instances behind a round-robin proxy), pgbouncer, pgbouncer-xN")
		agents   = flag.Int("agents", 50, "concurrent agents, each with its own account and key")
		duration = flag.Duration("duration", time.Minute, "load time per configuration")
		maxCalls = flag.Int("max-calls", 1_000_000, "most calls per configuration")
		cards    = flag.Int("cards", 200, "new cards in each agent's deck")
		pgURL    = flag.String("postgres", os.Getenv("TAKHTABUSH_TEST_POSTGRES_URL"), "Postgres server URL the Postgres configurations create their databases on")
		bouncer  = flag.String("pgbouncer", "/usr/sbin/pgbouncer", "pgbouncer binary")
		logCost  = flag.Int("logcost", 0, "instead of the load: N calls each of add_cards, start_study_session and submit_review by one agent, printing the log bytes each call wrote")
		sample   = flag.Duration("soak", 0, "soak mode: sample RSS, goroutines, open files, the log, p99 and bytes per row this often, and fail when one grows without bound (allows -duration up to 2h)")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *serve {
		return loadtest.Serve(ctx, *db, *media, os.Stdout, os.Stdin)
	}
	spawn, err := loadtest.SelfSpawn()
	if err != nil {
		return err
	}
	cfg := loadtest.Config{
		Agents: *agents, Duration: *duration, MaxCalls: *maxCalls, CardsPerAgent: *cards,
		PostgresURL: *pgURL, Spawn: spawn, Pgbouncer: *bouncer, Log: os.Stderr, Sample: *sample,
	}
	for name := range strings.SplitSeq(*configs, ",") {
		s, err := loadtest.ParseSetup(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		cfg.Setups = append(cfg.Setups, s)
	}
	if *logCost > 0 {
		costs, err := loadtest.MeasureLogCost(ctx, cfg, *logCost)
		loadtest.WriteLogCost(os.Stdout, costs)
		return err
	}
	results, err := loadtest.Run(ctx, cfg)
	loadtest.WriteTable(os.Stdout, results)
	loadtest.WriteSoak(os.Stdout, results)
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.OK() && r.Skipped == "" {
			return errors.New("a configuration failed its checks (above)")
		}
	}
	return nil
}
