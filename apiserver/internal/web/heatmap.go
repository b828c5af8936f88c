package web

import (
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// heatmap is a year of reviews drawn as SVG, a column a week (Monday on
// top) and a square a day, coloured by class in four steps of the busiest
// day: no script, no inline style. Each square's title says its date and
// count; the description sums the year up for a screen reader.
type heatmap struct {
	Width, Height int
	Cells         []heatCell
	Months        []chartLabel
	Days          []chartTick // weekday names beside their rows
	Desc          string
	Empty         bool
}

// heatCell is one day's square.
type heatCell struct {
	X, Y  int
	Class string // heat0 (no review) … heat4 (the busiest days)
	Label string
}

// The heatmap's geometry in viewBox units.
const (
	heatPitch, heatCell0, heatLeft, heatTop = 13, 11, 30, 16
)

// newHeatmap draws days (consecutive, oldest first, as get_stats gives
// them).
func newHeatmap(days []contracts.DayCount) heatmap {
	h := heatmap{Height: heatTop + 7*heatPitch, Empty: true}
	busiest, studied, total, busiestDate := 0, 0, 0, ""
	for _, d := range days {
		total += d.Reviews
		if d.Reviews > 0 {
			studied++
			h.Empty = false
		}
		if d.Reviews > busiest {
			busiest, busiestDate = d.Reviews, d.Date
		}
	}
	col, lastMonth := 0, ""
	for i, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		row := (int(t.Weekday()) + 6) % 7 // Monday first
		if i > 0 && row == 0 {
			col++
		}
		x, y := heatLeft+col*heatPitch, heatTop+row*heatPitch
		level := 0
		if d.Reviews > 0 {
			level = min(4, (4*d.Reviews+busiest-1)/busiest)
		}
		h.Cells = append(h.Cells, heatCell{X: x, Y: y, Class: fmt.Sprintf("heat%d", level),
			Label: fmt.Sprintf("%s: %s", t.Format("Mon 2 Jan 2006"), plural(d.Reviews, "review", "reviews"))})
		if m := t.Format("Jan"); m != lastMonth && t.Day() <= 7 {
			h.Months = append(h.Months, chartLabel{X: float64(x), Label: m})
			lastMonth = m
		}
	}
	h.Width = heatLeft + (col+1)*heatPitch + 16 // room for a month named at the last column
	for i, name := range []string{"Mon", "Wed", "Fri"} {
		h.Days = append(h.Days, chartTick{Y: float64(heatTop + (2*i)*heatPitch + heatCell0 - 2), Label: name})
	}
	h.Desc = fmt.Sprintf("Reviews on %d of the last %d days, %s in all.", studied, len(days), plural(total, "review", "reviews"))
	if busiest > 0 {
		t, _ := time.Parse(time.DateOnly, busiestDate)
		h.Desc += fmt.Sprintf(" The busiest day was %s with %s.", t.Format("2 January 2006"), plural(busiest, "review", "reviews"))
	}
	return h
}
