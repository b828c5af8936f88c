// Command mcpbench compares MCP server implementations side by side: our
// engine (mcpcore), the official go-sdk, mcp-go and a bare net/http floor,
// and measures the full stack (the apiserver on SQLite with API-key auth)
// on list_decks, submit_review and add_cards against the floor.
//
// Each server runs in its own child process (this binary re-executed with
// -serve), so server CPU and allocations are measured apart from the load
// generator. The report goes to stdout as markdown, or as JSON with -json;
// progress goes to stderr.
//
// Usage:
//
//	go run ./bench/cmd/mcpbench            # default run, about 2 minutes
//	go run ./bench/cmd/mcpbench -quick     # smoke test, a few seconds
//	go run ./bench/cmd/mcpbench -json > bench.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/takhtabush/takhtabush/bench/internal/harness"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run() error {
	def := harness.Default()
	var (
		serve     = flag.String("serve", "", "child mode: serve the named server and print its address (used by the harness itself)")
		addr      = flag.String("addr", "127.0.0.1:0", "child mode: listen address")
		quick     = flag.Bool("quick", false, "smoke-test settings: 1 round of a few hundred requests (overrides the load flags)")
		asJSON    = flag.Bool("json", false, "write the report as JSON instead of markdown")
		list      = flag.String("servers", "", "comma-separated servers to compare, in run order (default all: "+serverNames()+")")
		scens     = flag.String("scenarios", "", "comma-separated scenarios to measure (default all; the others are still checked once), e.g. list_decks")
		baseline  = flag.String("baseline", def.Baseline, "server the ratios are relative to")
		rounds    = flag.Int("rounds", def.Rounds, "measurement rounds; the report gives medians across rounds")
		workers   = flag.Int("workers", def.Workers, "concurrent keep-alive workers")
		warmReqs  = flag.Int("warmup-requests", def.WarmupRequests, "warm-up request limit per measurement")
		warmTime  = flag.Duration("warmup", def.Warmup, "warm-up time limit per measurement")
		requests  = flag.Int("requests", def.Requests, "request limit per measurement")
		duration  = flag.Duration("duration", def.Duration, "time limit per measurement")
		verbosity = flag.Bool("v", true, "log progress to stderr")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if *serve != "" {
		return harness.Serve(ctx, *serve, *addr, os.Stdout, os.Stdin)
	}

	cfg := harness.Config{
		Baseline: *baseline, Rounds: *rounds, Workers: *workers,
		WarmupRequests: *warmReqs, Warmup: *warmTime, Requests: *requests, Duration: *duration,
	}
	if *quick {
		q := harness.Quick()
		q.Baseline = *baseline
		cfg = q
	}
	if *scens != "" {
		cfg.Scenarios = strings.Split(*scens, ",")
	}
	if *list != "" {
		cfg.Servers = strings.Split(*list, ",")
	}
	if *verbosity {
		cfg.Log = os.Stderr
	}
	spawn, err := harness.SelfSpawn(func(name string) []string { return []string{"-serve", name, "-addr", "127.0.0.1:0"} })
	if err != nil {
		return err
	}
	cfg.Spawn = spawn

	rep, err := harness.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		return rep.WriteJSON(os.Stdout)
	}
	return rep.WriteMarkdown(os.Stdout)
}

func serverNames() string {
	var names []string
	for _, s := range servers.All() {
		names = append(names, s.Name())
	}
	return strings.Join(names, ",")
}
