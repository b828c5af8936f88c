package web

import (
	"fmt"
	"strconv"
	"time"
)

// A barChart is a bar chart drawn on the server as SVG: no script, no
// chart library, no inline style (the stylesheet colours it by class).
type barChart struct {
	ID, Title, Desc string
	Width, Height   int
	Bars            []chartBar
	Ticks           []chartTick
	Labels          []chartLabel
	Legend          []chartLegend
	Empty           bool // nothing to draw: every value is zero
}

// chartBar is one rectangle with its tooltip.
type chartBar struct {
	X, Y, W, H float64
	Class      string
	Label      string
}

// chartTick is one horizontal grid line with its value.
type chartTick struct {
	Y     float64
	Label string
}

// chartLabel is one label under the x axis; a Minor one is hidden on a
// narrow screen, where the labels would overlap.
type chartLabel struct {
	X     float64
	Label string
	Minor bool
}

// chartLegend explains a bar class.
type chartLegend struct {
	Class, Label string
}

// chartSeries is one stacked part of every bar: its class, its name and a
// value per column.
type chartSeries struct {
	Class, Name string
	Values      []int
}

// The chart's geometry in viewBox units.
const (
	chartW, chartH                       = 640, 220
	padLeft, padRight, padTop, padBottom = 40, 8, 10, 26
)

// newBarChart stacks the series over the columns named by dates
// (YYYY-MM-DD).
func newBarChart(id, title, desc string, dates []string, series ...chartSeries) barChart {
	c := barChart{ID: id, Title: title, Desc: desc, Width: chartW, Height: chartH}
	n := len(dates)
	if n == 0 {
		c.Empty = true
		return c
	}
	maxV := 0
	for i := range n {
		sum := 0
		for _, s := range series {
			sum += s.Values[i]
		}
		maxV = max(maxV, sum)
	}
	c.Empty = maxV == 0
	top, step := niceScale(maxV)
	plotW, plotH := float64(chartW-padLeft-padRight), float64(chartH-padTop-padBottom)
	y := func(v int) float64 { return padTop + plotH - plotH*float64(v)/float64(top) }
	for v := 0; v <= top; v += step {
		c.Ticks = append(c.Ticks, chartTick{Y: y(v), Label: strconv.Itoa(v)})
	}
	col := plotW / float64(n)
	gap := min(col*0.2, 4)
	every := max(1, (n+6)/7) // at most about seven date labels
	for i, d := range dates {
		x := padLeft + col*float64(i)
		base := 0
		for _, s := range series {
			v := s.Values[i]
			if v > 0 {
				c.Bars = append(c.Bars, chartBar{X: x + gap/2, Y: y(base + v), W: col - gap, H: y(base) - y(base+v),
					Class: s.Class, Label: fmt.Sprintf("%s: %d %s", shortDate(d), v, s.Name)})
			}
			base += v
		}
		if i%every == 0 {
			c.Labels = append(c.Labels, chartLabel{X: x + col/2, Label: shortDate(d)})
		}
	}
	for _, s := range series {
		c.Legend = append(c.Legend, chartLegend{Class: s.Class, Label: s.Name})
	}
	return c
}

// niceScale returns the axis top (≥ maxV, at least 1) and a tick step of
// 1, 2 or 5 times a power of ten giving about four ticks.
func niceScale(maxV int) (top, step int) {
	if maxV <= 0 {
		return 4, 1
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if s := m * p; (maxV+s-1)/s <= 5 {
				step = s
				top = ((maxV + s - 1) / s) * s
				return top, step
			}
		}
	}
}

// shortDate writes 2026-12-01 as "Dec 1".
func shortDate(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.Format("Jan 2")
}
