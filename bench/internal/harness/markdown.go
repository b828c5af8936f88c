package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the report as one markdown table per scenario, then
// the goals and the servers' own verifications.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	ri := r.Run
	fmt.Fprintf(&b, "## MCP engine comparison and full stack\n\n")
	fmt.Fprintf(&b, "%s, %d CPUs, %s. %d rounds × (warm-up %d req / %gs, then %d req or %gs, whichever first), %d keep-alive workers over 127.0.0.1.\n",
		ri.Started.Format("2006-01-02 15:04 MST"), ri.NumCPU, ri.GoVersion, ri.Rounds,
		ri.WarmupRequests, ri.WarmupSeconds, ri.Requests, ri.Seconds, ri.Workers)
	fmt.Fprintf(&b, "Each figure is the median across rounds; (×N) is its ratio to **%s** on the same scenario unless the table says otherwise. "+
		"CPU, allocs and bytes are the server process's own (getrusage user+sys, runtime.MemStats) divided by completed requests; "+
		"req/s and latency are seen by the load generator, which shares the machine. "+
		"Lower is better except for req/s.\n\n", ri.Baseline)
	for _, s := range r.Servers {
		fmt.Fprintf(&b, "- **%s**: %s\n", s.Name, s.Description)
	}
	for _, name := range sortedKeys(r.NotRun) {
		fmt.Fprintf(&b, "- **%s**: not run (%s)\n", name, r.NotRun[name])
	}
	for _, sc := range r.Scenarios {
		r.writeTable(&b, sc)
	}
	r.writeGoals(&b)
	r.writeVerified(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes one scenario's table.
func (r *Report) writeTable(b *strings.Builder, sc string) {
	ri := r.Run
	fmt.Fprintf(b, "\n### %s\n\n", sc)
	for _, c := range r.Cells {
		if c.Scenario == sc && c.BaselineScenario != sc {
			fmt.Fprintf(b, "Ratios of **%s** divide by **%s** on **%s**, a tools/call that does no work: the floor's cost of one MCP request.\n\n",
				c.Server, ri.Baseline, c.BaselineScenario)
		}
	}
	for _, s := range r.Servers {
		if p, ok := s.Prepared[sc]; ok {
			fmt.Fprintf(b, "**%s** prepared %d calls of %s for the run (each uses something up): each round's warm-up and measurement send at most %d and %d requests.\n\n",
				s.Name, p.Calls, sc, p.WarmupLimit, p.MeasureLimit)
		}
	}
	b.WriteString("| server | CPU µs/req | allocs/req | bytes/req | req/s | p50 µs | p99 µs | statements/req |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range r.Servers {
		c, ok := r.Cell(sc, s.Name)
		if !ok {
			continue
		}
		fmt.Fprintf(b, "| %s", s.Name)
		mf := c.Median.fields()
		for i, f := range mf {
			fmt.Fprintf(b, " | %s", formatFigure(*f))
			if f == &c.Median.Statements {
				continue // a count, not a cost to compare with the no-I/O floor
			}
			if c.Ratio != nil && s.Name != ri.Baseline {
				fmt.Fprintf(b, " (×%.2f)", *c.Ratio.fields()[i])
			}
		}
		b.WriteString(" |\n")
	}
}

// writeGoals writes the CPU goals and whether they were met; a goal of
// a server that did not run, or against one, is missed.
func (r *Report) writeGoals(b *strings.Builder) {
	type row struct {
		server, scenario, cpu string
		g                     GoalResult
	}
	var rows []row
	for _, c := range r.Cells {
		for _, g := range c.Goals {
			rows = append(rows, row{c.Server, c.Scenario, formatFigure(c.Median.CPUMicros), g})
		}
	}
	for _, name := range sortedKeys(r.NotRun) {
		for _, sc := range r.Scenarios {
			for _, g := range r.specs[[2]string{name, sc}].Goals {
				rows = append(rows, row{name, sc, "not run", GoalResult{Goal: g, NotRun: r.NotRun[name]}})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Goals\n\n")
	b.WriteString("Server CPU per request (medians across rounds) as a multiple of another server's on a scenario; " +
		"the database floors run the fewest statements a correct implementation needs, on the same schema and settings.\n\n")
	b.WriteString("| server | scenario | CPU µs/req | divided by | ratio | goal | met |\n")
	b.WriteString("|---|---|--:|---|--:|--:|---|\n")
	for _, rw := range rows {
		g := rw.g
		against, ratio, met := "not run", "n/a", "**missed** (not run: "+g.NotRun+")"
		if g.NotRun == "" {
			against, ratio, met = formatFigure(g.AgainstCPU)+" µs", fmt.Sprintf("×%.2f", g.Ratio), "**missed**"
			if g.Met {
				met = "yes"
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s %s: %s | %s | ≤ %g× | %s |\n", rw.server, rw.scenario, rw.cpu,
			g.Server, g.Scenario, against, ratio, g.Max, met)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// writeVerified writes the servers' checks of the run's effects.
func (r *Report) writeVerified(b *strings.Builder) {
	var lines []string
	for _, s := range r.Servers {
		if s.Verified != "" {
			lines = append(lines, fmt.Sprintf("- **%s**: %s\n", s.Name, s.Verified))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n### Verified after the run\n\n")
	for _, l := range lines {
		b.WriteString(l)
	}
}

// formatFigure prints a figure with precision suited to its magnitude.
func formatFigure(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
