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

// WriteMarkdown writes the report as one markdown table per scenario.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	ri := r.Run
	fmt.Fprintf(&b, "## MCP engine comparison\n\n")
	fmt.Fprintf(&b, "%s, %d CPUs, %s. %d rounds × (warm-up %d req / %gs, then %d req or %gs, whichever first), %d keep-alive workers over 127.0.0.1.\n",
		ri.Started.Format("2006-01-02 15:04 MST"), ri.NumCPU, ri.GoVersion, ri.Rounds,
		ri.WarmupRequests, ri.WarmupSeconds, ri.Requests, ri.Seconds, ri.Workers)
	fmt.Fprintf(&b, "Each figure is the median across rounds; (×N) is its ratio to **%s**. "+
		"CPU, allocs and bytes are the server process's own (getrusage user+sys, runtime.MemStats) divided by completed requests; "+
		"req/s and latency are seen by the load generator, which shares the machine. "+
		"Lower is better except for req/s.\n\n", ri.Baseline)
	for _, s := range r.Servers {
		fmt.Fprintf(&b, "- **%s**: %s\n", s.Name, s.Description)
	}
	for _, sc := range r.Scenarios {
		fmt.Fprintf(&b, "\n### %s\n\n", sc)
		b.WriteString("| server | CPU µs/req | allocs/req | bytes/req | req/s | p50 µs | p99 µs |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range r.Servers {
			c, ok := r.Cell(sc, s.Name)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s", s.Name)
			mf := c.Median.fields()
			for i, f := range mf {
				fmt.Fprintf(&b, " | %s", formatFigure(*f))
				if c.Ratio != nil && s.Name != ri.Baseline {
					fmt.Fprintf(&b, " (×%.2f)", *c.Ratio.fields()[i])
				}
			}
			b.WriteString(" |\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
