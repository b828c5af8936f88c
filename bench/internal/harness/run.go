package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// mcpPath is the URL path the load posts to.
const mcpPath = "/mcp"

// Run starts every configured server in its own child process, checks that
// each answers its scenarios correctly, then measures every scenario × server
// cell cfg.Rounds times, interleaving the servers within each round.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	all, err := selectServers(cfg.Servers)
	if err != nil {
		return nil, err
	}
	notRun := map[string]string{}
	var srvs []servers.Server
	for _, s := range all {
		if o, ok := s.(servers.Optional); ok && o.Unavailable() != "" {
			notRun[s.Name()] = o.Unavailable()
			cfg.logf("not running %s: %s", s.Name(), o.Unavailable())
			continue
		}
		srvs = append(srvs, s)
	}
	rep = newReport(cfg, srvs)
	rep.notRun(all, notRun)

	children := make(map[string]*child, len(srvs))
	defer func() {
		for _, c := range children {
			err = errors.Join(err, c.stop())
		}
	}()
	calls := cfg.maxCalls()
	for _, s := range srvs {
		c, err := startChild(cfg.Spawn, s.Name(), cfg.Workers, calls)
		if err != nil {
			return nil, err
		}
		children[s.Name()] = c
		if err := c.bind(cfg, rep, s); err != nil {
			return nil, err
		}
		cfg.logf("started %s at %s", s.Name(), c.base)
	}

	for _, s := range srvs {
		c := children[s.Name()]
		for _, sc := range c.scenarios {
			if err := sanityCheck(ctx, c.targets[sc.Name], sc); err != nil {
				return nil, fmt.Errorf("sanity check %s / %s: %w", s.Name(), sc.Name, err)
			}
			rep.addChecked(s.Name(), sc.Name)
		}
	}
	cfg.logf("sanity check passed: every server answered every scenario correctly")

	for round := 1; round <= cfg.Rounds; round++ {
		for _, name := range rep.Scenarios {
			if len(cfg.Scenarios) > 0 && !slices.Contains(cfg.Scenarios, name) {
				continue
			}
			for _, s := range srvs {
				c := children[s.Name()]
				sc, ok := c.scenario(name)
				if !ok {
					continue
				}
				smp, err := measure(ctx, cfg, c, sc)
				if err != nil {
					return nil, fmt.Errorf("round %d, %s / %s: %w", round, s.Name(), name, err)
				}
				smp.Round = round
				rep.Samples = append(rep.Samples, smp)
				cfg.logf("round %d %-13s %-12s %7d req %8.0f req/s %8.1f µs CPU/req %7.1f allocs/req %5.1f stmts/req",
					round, name, s.Name(), smp.Requests, smp.RPS, smp.CPUMicros, smp.Allocs, smp.Statements)
			}
		}
	}
	for _, s := range srvs {
		if err := verifyChild(ctx, cfg, rep, children[s.Name()]); err != nil {
			return nil, err
		}
	}
	rep.aggregate(cfg.Baseline)
	return rep, nil
}

func selectServers(names []string) ([]servers.Server, error) {
	if len(names) == 0 {
		return servers.All(), nil
	}
	var out []servers.Server
	for _, n := range names {
		s, err := servers.Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func sanityCheck(ctx context.Context, t target, sc scenario.Scenario) error {
	resp, err := fetch(ctx, t)
	if err != nil {
		return err
	}
	if err := sc.Check(resp); err != nil {
		return err
	}
	return scenario.FastCheck(resp.Status, resp.Body)
}

// measure warms one cell up, then runs the measured phase between two reads
// of the server's counters.
func measure(ctx context.Context, cfg Config, c *child, sc scenario.Scenario) (Sample, error) {
	t := c.targets[sc.Name]
	warm, limit := cfg.quotas(t.capacity)
	if warm > 0 && cfg.Warmup > 0 {
		if _, err := runLoad(ctx, t, cfg.Workers, phase{warm, cfg.Warmup}); err != nil {
			return Sample{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	before, err := c.stats()
	if err != nil {
		return Sample{}, err
	}
	res, err := runLoad(ctx, t, cfg.Workers, phase{limit, cfg.Duration})
	if err != nil {
		return Sample{}, err
	}
	after, err := c.stats()
	if err != nil {
		return Sample{}, err
	}
	if res.ok == 0 {
		return Sample{}, fmt.Errorf("no request completed")
	}
	n := float64(res.ok)
	slices.Sort(res.latencies)
	return Sample{
		Server:   c.name,
		Scenario: sc.Name,
		Requests: res.ok,
		Limit:    limit,
		Seconds:  res.elapsed.Seconds(),
		GCs:      after.NumGC - before.NumGC,
		Metrics: Metrics{
			CPUMicros:  float64(after.CPUNanos-before.CPUNanos) / 1e3 / n,
			Allocs:     float64(after.Mallocs-before.Mallocs) / n,
			Bytes:      float64(after.TotalAlloc-before.TotalAlloc) / n,
			RPS:        n / res.elapsed.Seconds(),
			P50Micros:  micros(percentile(res.latencies, 0.50)),
			P99Micros:  micros(percentile(res.latencies, 0.99)),
			Statements: float64(after.Statements-before.Statements) / n,
		},
	}, nil
}

// percentile returns the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// hostInfo describes the machine the harness runs on.
func hostInfo() (goVersion string, numCPU int) { return runtime.Version(), runtime.NumCPU() }
