package harness

import (
	"encoding/json"
	"fmt"
	"io"
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
	b.WriteString("| server | CPU µs/req | allocs/req | bytes/req | req/s | p50 µs | p99 µs |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range r.Servers {
		c, ok := r.Cell(sc, s.Name)
		if !ok {
			continue
		}
		fmt.Fprintf(b, "| %s", s.Name)
		mf := c.Median.fields()
		for i, f := range mf {
			fmt.Fprintf(b, " | %s", formatFigure(*f))
			if c.Ratio != nil && s.Name != ri.Baseline {
				fmt.Fprintf(b, " (×%.2f)", *c.Ratio.fields()[i])
			}
		}
		b.WriteString(" |\n")
	}
}

// writeGoals writes the CPU goals and whether they were met.
func (r *Report) writeGoals(b *strings.Builder) {
	var cells []Cell
	for _, c := range r.Cells {
		if c.CPUGoal > 0 {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return
	}
	base := r.Run.Baseline
	fmt.Fprintf(b, "\n### Goals\n\n")
	fmt.Fprintf(b, "Server CPU per request as a multiple of **%s**'s: list_decks against %s's list_decks; "+
		"each mutating call, including its audit row, against %s's **echo**, a tools/call that does no work.\n\n", base, base, base)
	b.WriteString("| server | scenario | CPU µs/req | divided by | ratio | goal | met |\n")
	b.WriteString("|---|---|--:|---|--:|--:|---|\n")
	for _, c := range cells {
		ratio, met := "n/a", fmt.Sprintf("n/a (no %s in this run)", base)
		if bc, ok := r.Cell(c.BaselineScenario, base); ok && c.Ratio != nil {
			ratio, met = fmt.Sprintf("×%.2f", c.Ratio.CPUMicros), "**missed**"
			if *c.GoalMet {
				met = "yes"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s %s: %s µs | %s | ≤ %g× | %s |\n", c.Server, c.Scenario,
				formatFigure(c.Median.CPUMicros), base, c.BaselineScenario, formatFigure(bc.Median.CPUMicros), ratio, c.CPUGoal, met)
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s %s | %s | ≤ %g× | %s |\n", c.Server, c.Scenario,
			formatFigure(c.Median.CPUMicros), base, c.BaselineScenario, ratio, c.CPUGoal, met)
	}
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
