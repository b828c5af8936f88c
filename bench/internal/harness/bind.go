package harness

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// bind builds the child's scenarios from its setup and a load target for
// each; it fails when a scenario's setup supports too few calls to measure.
func (c *child) bind(cfg Config, rep *Report, s servers.Server) error {
	scs, err := servers.Bound(s.Scenarios(), c.setup)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name(), err)
	}
	c.scenarios = scs
	c.targets = make(map[string]target, len(scs))
	for _, sc := range scs {
		st := c.setup[sc.Name]
		if st.Capacity > 0 {
			warm, limit := cfg.quotas(st.Capacity)
			if limit < 1 {
				return fmt.Errorf("%s / %s: the server prepared %d calls, too few for %d rounds", s.Name(), sc.Name, st.Capacity, cfg.Rounds)
			}
			rep.setPrepared(s.Name(), sc.Name, Prepared{Calls: st.Capacity, WarmupLimit: warm, MeasureLimit: limit})
		}
		h := scenario.Header()
		for _, extra := range []http.Header{c.header, st.Header} {
			for k, v := range extra {
				h[k] = v
			}
		}
		c.targets[sc.Name] = target{client: c.client, url: c.base + mcpPath, header: h, body: sc.Body, seq: new(atomic.Int64), capacity: st.Capacity}
	}
	return nil
}

// scenario returns the child's bound scenario of that name.
func (c *child) scenario(name string) (scenario.Scenario, bool) {
	i := slices.IndexFunc(c.scenarios, func(sc scenario.Scenario) bool { return sc.Name == name })
	if i < 0 {
		return scenario.Scenario{}, false
	}
	return c.scenarios[i], true
}

// verifyChild has a server that checks the run's effects do so, given how
// many requests each of its scenarios sent (all of which succeeded), and
// records its summary.
func verifyChild(ctx context.Context, cfg Config, rep *Report, c *child) error {
	calls := make(map[string]int, len(c.targets))
	for name, t := range c.targets {
		calls[name] = t.calls()
	}
	rep.setCalls(c.name, calls)
	if !c.verify {
		return nil
	}
	sum, err := c.verifyRun(ctx, calls)
	if err != nil {
		return err
	}
	rep.setVerified(c.name, sum)
	cfg.logf("%s verified: %s", c.name, sum)
	return nil
}
