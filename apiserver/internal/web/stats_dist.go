package web

import (
	"fmt"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// buttonTable is the answer-buttons table: a row per rating and a last
// row with the share kept, a column per card age (learning, young,
// mature), so it fits a phone's width.
type buttonTable struct {
	Rows []buttonRow
	Kept [3]string // the share rated hard, good or easy: "87.5%", or "–"
}

// buttonRow is one rating's line: its name and a count per card age.
type buttonRow struct {
	Rating string
	Counts [3]int
}

// newButtonTable lays out the answer buttons by rating and card age.
func newButtonTable(b contracts.Buttons) buttonTable {
	var t buttonTable
	ages := [3][4]int{b.Learning, b.Young, b.Mature}
	for i, name := range []string{"Again", "Hard", "Good", "Easy"} {
		t.Rows = append(t.Rows, buttonRow{Rating: name, Counts: [3]int{ages[0][i], ages[1][i], ages[2][i]}})
	}
	for a, counts := range ages {
		total := counts[0] + counts[1] + counts[2] + counts[3]
		t.Kept[a] = "–"
		if total > 0 {
			t.Kept[a] = fmt.Sprintf("%.1f%%", float64(total-counts[0])*100/float64(total))
		}
	}
	return t
}

// newHistogram draws the buckets as a bar chart with every bucket
// labelled (every other one on a narrow screen, by the stylesheet) and
// the counts in its description, the chart's text equivalent.
func newHistogram(id, title, unit string, bs []contracts.Bucket) barChart {
	labels := make([]string, len(bs))
	values := make([]int, len(bs))
	parts := make([]string, len(bs))
	total := 0
	for i, b := range bs {
		labels[i] = strings.TrimSuffix(b.Label, " d")
		values[i] = b.Cards
		total += b.Cards
		parts[i] = fmt.Sprintf("%s: %d", b.Label, b.Cards)
	}
	desc := fmt.Sprintf("%d cards by %s. %s.", total, unit, strings.Join(parts, ", "))
	c := newBarChart(id, title, desc, labels, chartSeries{Class: "bar-due", Name: "cards", Values: values})
	c.Labels = c.Labels[:0]
	if len(bs) > 0 {
		col := float64(chartW-padLeft-padRight) / float64(len(bs))
		for i, l := range labels {
			c.Labels = append(c.Labels, chartLabel{X: padLeft + col*(float64(i)+0.5), Label: l, Minor: i%2 == 1})
		}
	}
	return c
}
