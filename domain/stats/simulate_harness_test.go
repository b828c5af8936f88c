package stats

import (
	"math"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/internal/fsrsharness"
)

// runHarness runs the harness's learner.mjs in mode with in as its input
// and decodes its output into out (fsrsharness.Run).
func runHarness(t *testing.T, mode string, in, out any) {
	t.Helper()
	fsrsharness.Run(t, "learner.mjs", mode, in, out)
}

// TestForecastAgainstIndependentLearner checks the workload forecast
// against a learner simulated with ts-fsrs: after 60 days of study, the
// forecast of the next 30 days (from the deck as it then stands, with the
// same new cards per day) is within 15% of the reviews the learner
// actually does in each week.
func TestForecastAgainstIndependentLearner(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const historyDays, days, newPerDay = 60, 30, 15
	cfg := map[string]any{
		"seed": 20261201, "weights": contracts.DefaultWeights, "retention": 0.9, "maxInterval": 36500,
		"learningSteps": []float64{1, 10}, "relearningSteps": []float64{10},
		"cards": 1500, "newPerDay": newPerDay, "historyDays": historyDays, "days": days, "start": start.Format(time.RFC3339),
		"firstMix": DefaultRatingMix.First, "recallMix": DefaultRatingMix.Recall,
	}
	var got struct {
		Cards  []contracts.CardState `json:"cards"`
		Actual []int                 `json:"actual"`
	}
	runHarness(t, "forecast", cfg, &got)
	if len(got.Actual) != days || len(got.Cards) != 1500 {
		t.Fatalf("harness gave %d cards and %d days", len(got.Cards), len(got.Actual))
	}
	set := contracts.DefaultDeckSettings()
	set.NewCardsPerDay, set.ReviewsPerDay = newPerDay, 10000
	began := time.Now()
	var scheduled []contracts.CardState
	fresh := 0
	for _, c := range got.Cards {
		if c.Phase == contracts.PhaseNew {
			fresh++
		} else {
			scheduled = append(scheduled, c)
		}
	}
	sim, err := simulate(SimInput{
		Cards: scheduled, NewCards: fresh, Settings: set, Day: contracts.LearnerDay{Location: time.UTC},
		Now: start.AddDate(0, 0, historyDays), Days: days, NewPerDay: newPerDay, Mix: DefaultRatingMix, Seed: 1,
	}, fsrs.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulation of %d cards over %d days took %v", len(got.Cards), days, time.Since(began).Round(time.Millisecond))
	for w := 0; w*7 < days; w++ {
		var want, have float64
		for d := w * 7; d < min(days, w*7+7); d++ {
			want += float64(got.Actual[d])
			have += sim[d].Reviews
		}
		e := (have - want) / want
		t.Logf("week %d (days %d-%d): learner %v reviews, forecast %.1f, error %+.1f%%", w+1, w*7+1, min(days, w*7+7), want, have, 100*e)
		if math.Abs(e) > 0.15 {
			t.Errorf("week %d: forecast %.1f reviews, the learner did %v (%+.1f%%, limit 15%%)", w+1, have, want, 100*e)
		}
	}
}
