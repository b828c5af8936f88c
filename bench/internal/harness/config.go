// Package harness runs MCP servers in child processes, drives them with
// keep-alive HTTP load over loopback, and reports per-request server CPU,
// allocations and latency relative to a baseline server.
package harness

import (
	"fmt"
	"io"
	"time"
)

// Config controls one harness run.
type Config struct {
	// Servers names the servers to compare, in run order; empty means all registered.
	Servers []string
	// Baseline names the server whose figures the ratios divide by.
	Baseline string
	// Scenarios, when not empty, names the only scenarios measured (the
	// others are still checked once); the default measures every one.
	Scenarios []string
	// Rounds is how many times every server × scenario cell is measured; the
	// report gives the median across rounds.
	Rounds int
	// Workers is the number of concurrent keep-alive connections.
	Workers int
	// WarmupRequests and Warmup bound the unmeasured warm-up before each measurement.
	WarmupRequests int
	Warmup         time.Duration
	// Requests and Duration bound each measurement; whichever is reached first ends it.
	Requests int
	Duration time.Duration
	// Spawn starts a server child process.
	Spawn SpawnFunc
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Default returns the settings used by `make bench`.
func Default() Config {
	return Config{
		Baseline:       "floor",
		Rounds:         3,
		Workers:        8,
		WarmupRequests: 3000,
		Warmup:         500 * time.Millisecond,
		Requests:       30000,
		Duration:       2 * time.Second,
	}
}

// Quick returns settings for a smoke test that finishes in seconds.
func Quick() Config {
	c := Default()
	c.Rounds = 1
	c.Workers = 4
	c.WarmupRequests = 50
	c.Warmup = 200 * time.Millisecond
	c.Requests = 300
	c.Duration = 300 * time.Millisecond
	return c
}

func (c *Config) validate() error {
	switch {
	case c.Rounds < 1:
		return fmt.Errorf("rounds must be at least 1")
	case c.Workers < 1:
		return fmt.Errorf("workers must be at least 1")
	case c.Requests < 1 || c.Duration <= 0:
		return fmt.Errorf("requests and duration must be positive")
	case c.Spawn == nil:
		return fmt.Errorf("no spawn function")
	}
	return nil
}

// maxCalls is the most requests one scenario sends to one server in a run:
// the sanity check, then per round a warm-up and a measurement, each of
// which stops at its request limit at the latest.
func (c *Config) maxCalls() int {
	per := c.Requests
	if c.WarmupRequests > 0 && c.Warmup > 0 {
		per += c.WarmupRequests
	}
	return 1 + c.Rounds*per
}

// quotas returns the request limits of one warm-up and one measurement of
// a scenario whose server prepared capacity calls (0: unlimited). When the
// run could send more, the prepared calls are shared out: after the
// sanity check each round gets an equal part, at most a fifth of it for
// the warm-up.
func (c *Config) quotas(capacity int) (warmup, measure int) {
	warmup, measure = c.WarmupRequests, c.Requests
	if c.Warmup <= 0 {
		warmup = 0
	}
	if capacity <= 0 || capacity >= c.maxCalls() {
		return warmup, measure
	}
	round := (capacity - 1) / c.Rounds
	warmup = min(warmup, round/5)
	return warmup, min(measure, round-warmup)
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}
