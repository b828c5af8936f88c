package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/takhtabush/takhtabush/contracts"
)

// statsPage is the stats page's data.
type statsPage struct {
	Decks     []option
	Periods   []option
	DeckName  string
	Stats     contracts.Stats
	Plan      contracts.StudyPlan
	Retention string // "91.2%", or "" without mature reviews
	TimeSpent string
	Reviews   barChart
	Forecast  barChart
	DueToday  int
	// Year is the last 365 days of reviews as a heatmap; Young and Mature
	// the retention of young and mature cards' reviews in the period.
	Year          heatmap
	Young, Mature string
	// Buttons, Intervals, Stability and Difficulty draw the scheduled
	// cards' distribution and the answers by card age.
	Buttons                          buttonTable
	Intervals, Stability, Difficulty barChart
}

// statsPeriods are the periods the page offers, in days.
var statsPeriods = []int{7, 30, 90, 365}

func (p *AccountPages) stats(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Stats", "stats"
	q := r.URL.Query()
	deckID := q.Get("deck")
	days := 30
	if s := q.Get("days"); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil {
			p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "days must be a number such as 30"))
			return
		}
		days = d
	}
	ctx := r.Context()
	st, err := p.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: deckID, Days: days})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	plan, err := p.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: deckID, Days: 30, Advise: true})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	sp := statsPage{Stats: st, Plan: plan, TimeSpent: duration(st.TimeSpentSeconds)}
	decks, err := allDecks(r, p.svc.Decks)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	sp.Decks = []option{{Value: "", Label: "All decks"}}
	for _, d := range decks {
		sp.Decks = append(sp.Decks, option{Value: d.ID, Label: d.Name, Selected: d.ID == deckID})
		if d.ID == deckID {
			sp.DeckName = d.Name
		}
	}
	for _, n := range statsPeriods {
		sp.Periods = append(sp.Periods, option{Value: strconv.Itoa(n), Label: fmt.Sprintf("Last %d days", n), Selected: n == st.Days})
	}
	if st.TrueRetention != nil {
		sp.Retention = fmt.Sprintf("%.1f%%", *st.TrueRetention*100)
	}
	sp.Young, sp.Mature = percent(st.YoungRetention), percent(st.MatureRetention)
	year := st
	if st.Days != contracts.MaxPlanDays {
		if year, err = p.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: deckID, Days: contracts.MaxPlanDays}); err != nil {
			p.site.Fail(w, r, v, err)
			return
		}
	}
	sp.Year = newHeatmap(year.ReviewsPerDay)
	var dates []string
	passed, failed := make([]int, len(st.ReviewsPerDay)), make([]int, len(st.ReviewsPerDay))
	for i, d := range st.ReviewsPerDay {
		dates = append(dates, d.Date)
		passed[i], failed[i] = d.Passed, d.Reviews-d.Passed
	}
	sp.Reviews = newBarChart("reviews-chart", "Reviews per day",
		fmt.Sprintf("%d reviews in the last %d days, stacked: remembered and forgotten.", st.TotalReviews, st.Days), dates,
		chartSeries{Class: "bar-ok", Name: "remembered", Values: passed},
		chartSeries{Class: "bar-again", Name: "forgotten", Values: failed})
	dates = nil
	due := make([]int, len(plan.Forecast))
	for i, d := range plan.Forecast {
		dates = append(dates, d.Date)
		due[i] = d.Due
	}
	if len(due) > 0 {
		sp.DueToday = due[0]
	}
	sp.Forecast = newBarChart("forecast-chart", "Due forecast",
		fmt.Sprintf("Cards due on each of the next %d days; today includes everything overdue.", len(due)), dates,
		chartSeries{Class: "bar-due", Name: "due", Values: due})
	dist, err := p.svc.Stats.Distribution(ctx, contracts.GetStatsArgs{DeckID: deckID, Days: st.Days})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	sp.Buttons = newButtonTable(dist.Buttons)
	sp.Intervals = newHistogram("intervals-chart", "Intervals in days", "interval in days", dist.Intervals)
	sp.Stability = newHistogram("stability-chart", "Stability in days", "stability in days", dist.Stability)
	sp.Difficulty = newHistogram("difficulty-chart", "Difficulty", "difficulty (1 easy to 10 hard)", dist.Difficulty)
	v.Data = sp
	p.site.Render(w, r, "stats", v)
}

// percent writes a share as "91.2%"; "" for none.
func percent(f *float64) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%.1f%%", *f*100)
}

// duration writes seconds as "1 h 5 min", "12 min" or "40 s".
func duration(seconds int) string {
	switch {
	case seconds < 60:
		return fmt.Sprintf("%d s", seconds)
	case seconds < 3600:
		return fmt.Sprintf("%d min", seconds/60)
	}
	return fmt.Sprintf("%d h %d min", seconds/3600, seconds%3600/60)
}
