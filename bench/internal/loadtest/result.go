package loadtest

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Result is one configuration's figures and checks.
type Result struct {
	Setup   Setup
	Agents  int
	Skipped string // why it did not run; empty when it ran
	// Calls is the number of answered calls; PerSecond their rate.
	Calls     int
	PerSecond float64
	P50, P99  time.Duration
	Reviews   int // acknowledged reviews
	Mutations int // acknowledged mutations (sessions started and reviews)
	Replays   int
	// ToolErrors counts isError results by their message's start.
	ToolErrors map[string]int
	// Status counts the HTTP statuses.
	Status map[int]int
	// CPU per answered call, in milliseconds.
	InstanceMs, PostgresMs, BouncerMs, GeneratorMs float64
	// MachineBusy is the share of the machine's CPU time that was busy.
	MachineBusy float64
	// Failures are the checks that failed; empty when the run is clean.
	Failures []string
	// Samples are the first failed calls.
	Samples []string
	// Soak holds a soak run's samples; IdleLog is SQLite's log IdleAfter
	// the load stopped (when it went under 16 MiB, or a minute).
	Soak      []SoakSample
	IdleLog   int64
	IdleAfter time.Duration
}

// OK reports whether the configuration ran and every check held.
func (r Result) OK() bool { return r.Skipped == "" && len(r.Failures) == 0 }

// fill takes the figures from what the agents saw and the CPU spent.
func (r *Result) fill(o loadOutcome, cpu cpuSample) {
	r.Calls = len(o.latencies)
	if o.elapsed > 0 {
		r.PerSecond = float64(r.Calls) / o.elapsed.Seconds()
	}
	lat := slices.Clone(o.latencies)
	slices.Sort(lat)
	r.P50, r.P99 = percentile(lat, 0.50), percentile(lat, 0.99)
	r.Reviews = o.acked[toolReview]
	r.Mutations = o.acked[toolReview] + o.acked[toolStart]
	r.Replays = o.replays
	r.ToolErrors, r.Status, r.Samples = o.toolErrs, o.status, o.samples
	if r.Calls > 0 {
		per := 1000 / float64(r.Calls)
		r.InstanceMs, r.PostgresMs, r.BouncerMs, r.GeneratorMs = cpu.instances*per, cpu.postgres*per, cpu.bouncer*per, cpu.generator*per
	}
	if cpu.wall > 0 {
		r.MachineBusy = cpu.machine / cpu.wall
	}
}

// check compares what the agents were told with the rows the database
// holds: nothing acknowledged may be missing, nothing may be there that
// was not acknowledged, and no call may have failed on the server's side.
func (r *Result) check(o loadOutcome, rows rowCounts) {
	if r.Calls == 0 {
		r.Failures = append(r.Failures, "no call was answered")
	}
	if rows.reviews != r.Reviews {
		r.Failures = append(r.Failures, fmt.Sprintf("review-log rows %d != acknowledged reviews %d", rows.reviews, r.Reviews))
	}
	for _, tool := range []string{toolStart, toolReview} {
		if rows.auditOK[tool] != o.acked[tool] {
			r.Failures = append(r.Failures, fmt.Sprintf("audit rows of %s %d != acknowledged %d", tool, rows.auditOK[tool], o.acked[tool]))
		}
	}
	var failed int
	for tool, n := range rows.auditOK {
		if tool != toolStart && tool != toolReview {
			r.Failures = append(r.Failures, fmt.Sprintf("%d audit rows of %s, which no agent called", n, tool))
		}
	}
	for _, n := range o.toolErrs {
		failed += n
	}
	if rows.auditFail != failed {
		r.Failures = append(r.Failures, fmt.Sprintf("audit rows of failed calls %d != tool errors %d", rows.auditFail, failed))
	}
	for code, n := range o.status {
		if code >= 500 {
			r.Failures = append(r.Failures, fmt.Sprintf("%d calls answered HTTP %d", n, code))
		} else if code != 200 {
			r.Failures = append(r.Failures, fmt.Sprintf("%d calls answered HTTP %d", n, code))
		}
	}
	if o.transport > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d calls got no answer", o.transport))
	}
	if o.rpcErrs > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d JSON-RPC errors", o.rpcErrs))
	}
	if failed > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d tool errors", failed))
	}
	sort.Strings(r.Failures)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

// Line is a one-line summary.
func (r Result) Line() string {
	if r.Skipped != "" {
		return fmt.Sprintf("%s: skipped: %s", r.Setup.Name, r.Skipped)
	}
	verdict := "ok, nothing lost"
	if len(r.Failures) > 0 {
		verdict = "FAILED: " + strings.Join(r.Failures, "; ")
	}
	return fmt.Sprintf("%s: %d calls, %.0f calls/s, p50 %s p99 %s, %d reviews, %d mutations acknowledged; %s",
		r.Setup.Name, r.Calls, r.PerSecond, ms(r.P50), ms(r.P99), r.Reviews, r.Mutations, verdict)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// WriteTable writes the results as a markdown table, then the failures.
func WriteTable(w io.Writer, results []Result) {
	fmt.Fprintln(w, "| configuration | agents | calls | calls/s | p50 | p99 | reviews = log rows | mutations = audit rows | 5xx | CPU ms/call: instances | Postgres | pgbouncer | load generator | machine busy |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(w, "| %s | skipped: %s |||||||||||||\n", r.Setup.Name, r.Skipped)
			continue
		}
		var fivexx int
		for code, n := range r.Status {
			if code >= 500 {
				fivexx += n
			}
		}
		same := func(ok bool) string {
			if ok {
				return "yes"
			}
			return "NO"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f | %s | %s | %d (%s) | %d (%s) | %d | %.2f | %.2f | %.2f | %.2f | %.0f%% |\n",
			r.Setup.Name, r.Agents, r.Calls, r.PerSecond, ms(r.P50), ms(r.P99),
			r.Reviews, same(!r.failed("review-log")), r.Mutations, same(!r.failed("audit rows")), fivexx,
			r.InstanceMs, r.PostgresMs, r.BouncerMs, r.GeneratorMs, 100*r.MachineBusy)
	}
	for _, r := range results {
		for _, f := range r.Failures {
			fmt.Fprintf(w, "\n%s FAILED: %s", r.Setup.Name, f)
		}
		for _, s := range r.Samples {
			fmt.Fprintf(w, "\n%s sample: %s", r.Setup.Name, s)
		}
	}
	fmt.Fprintln(w)
}

func (r Result) failed(prefix string) bool {
	for _, f := range r.Failures {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}
