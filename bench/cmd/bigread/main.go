// Command bigread measures the read tools on a big account (issue 12 §3):
// the real apiserver with one account of 100,000 cards in five decks with
// a review history, on SQLite and on Postgres (TAKHTABUSH_TEST_POSTGRES_URL),
// under 4 concurrent clients over HTTP /mcp with an API key. For
// list_decks, get_deck, get_stats, get_study_plan and search_cards (a
// rare and a common word) it reports the warm server CPU per call (app
// plus, on Postgres, database backends), p50 and p99 latency, and whether
// each meets its goal (≤ 5 ms of CPU per call, search ≤ 3 ms).
//
// Each server runs in its own child process (this binary re-executed with
// -serve), which seeds the account before it reports ready.
//
// Usage:
//
//	go run ./bench/cmd/bigread               # 100,000 cards, about 3 minutes
//	go run ./bench/cmd/bigread -quick        # smoke test: 500 cards, a few seconds
//	go run ./bench/cmd/bigread -servers bigread -cards 20000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/harness"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bigread:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		serve    = flag.String("serve", "", "child mode: serve the named server and print its address (used by the command itself)")
		addr     = flag.String("addr", "127.0.0.1:0", "child mode: listen address")
		quick    = flag.Bool("quick", false, "smoke-test settings: 500 cards, 50 calls per tool")
		list     = flag.String("servers", "", "comma-separated servers (default bigread,bigread-pg)")
		cards    = flag.Int("cards", servers.BigCards, "cards in the account")
		workers  = flag.Int("workers", 4, "concurrent clients")
		requests = flag.Int("requests", 2000, "call limit per tool")
		duration = flag.Duration("duration", 10*time.Second, "time limit per tool")
		warmReqs = flag.Int("warmup-requests", 100, "warm-up call limit per tool")
		warmup   = flag.Duration("warmup", 3*time.Second, "warm-up time limit per tool")
		asJSON   = flag.Bool("json", false, "write the report as JSON")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *serve != "" {
		return harness.Serve(ctx, *serve, *addr, os.Stdout, os.Stdin)
	}
	cfg := harness.BigConfig{Cards: *cards, Workers: *workers, Requests: *requests, Duration: *duration,
		WarmupRequests: *warmReqs, Warmup: *warmup, Log: os.Stderr}
	if *quick {
		cfg.Cards, cfg.Requests, cfg.WarmupRequests, cfg.Duration, cfg.Warmup = 500, 50, 10, 5*time.Second, time.Second
	}
	if *list != "" {
		cfg.Servers = strings.Split(*list, ",")
	}
	spawn, err := harness.SelfSpawn(func(name string) []string { return []string{"-serve", name, "-addr", "127.0.0.1:0"} })
	if err != nil {
		return err
	}
	cfg.Spawn = spawn
	rep, err := harness.RunBig(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteMarkdown(os.Stdout)
}
