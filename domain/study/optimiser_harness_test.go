package study

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrsopt"
	"github.com/takhtabush/takhtabush/domain/internal/fsrsharness"
)

// harnessReview is a review as the harness's optimiser.mjs writes it.
type harnessReview struct {
	Rating int   `json:"rating"`
	Day    int   `json:"day"`
	At     int64 `json:"at"`
}

// TestFitAgainstReference fits a learner simulated with ts-fsrs (memory
// unlike the default weights, scheduled with the defaults) for a year and
// compares the fit with the reference optimiser's (fsrs-rs through the
// npm binding) on the same reviews, both scored by the binding's own
// evaluation: our log loss must be within 2% of the reference's, and both
// must beat the defaults. fsrsopt.EvaluateReference must agree with the
// binding's evaluation.
func TestFitAgainstReference(t *testing.T) {
	cfg := map[string]any{
		"seed": 20261201, "retention": 0.9, "cards": 800, "newPerDay": 8, "days": 365,
		"start": "2025-01-01T00:00:00Z", "skipShare": 0.1,
		"firstMix": []float64{0.25, 0.15, 0.5, 0.1}, "recallMix": []float64{0.12, 0.78, 0.1}, "stepMix": []float64{0.12, 0.05, 0.8, 0.03},
		"trueWeights": []float64{0.1, 0.5, 1.2, 4.0, 7.0, 0.6, 2.2, 0.02, 1.2, 0.3, 1.2, 2.0, 0.1, 0.4, 1.2, 0.4, 2.5, 0.7, 0.25, 0.1, 0.45},
	}
	var sim struct {
		Cards     [][]harnessReview `json:"cards"`
		Reference []float64         `json:"reference"`
		RefSecs   float64           `json:"referenceSeconds"`
		Items     int               `json:"items"`
		Eval      map[string]fsrsopt.Metrics
	}
	fsrsharness.Run(t, "optimiser.mjs", "simulate", cfg, &sim)
	reviews := 0
	hist := make([]fsrsopt.History, len(sim.Cards))
	for i, c := range sim.Cards {
		hist[i].Card = string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('0'+i/260))
		for _, r := range c {
			hist[i].Reviews = append(hist[i].Reviews, fsrsopt.Review{Rating: contracts.Ratings[r.Rating-1], Day: r.Day, At: time.UnixMilli(r.At)})
		}
		reviews += len(c)
	}
	if len(hist) < 500 || reviews < 10000 {
		t.Fatalf("the learner has %d cards and %d reviews, want at least 500 and 10,000", len(hist), reviews)
	}
	began := time.Now()
	res, err := fsrsopt.Fit(context.Background(), hist, fsrsopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	var scored map[string]fsrsopt.Metrics
	fsrsharness.Run(t, "optimiser.mjs", "evaluate", map[string]any{"cards": sim.Cards, "weights": map[string][]float64{"ours": res.Weights}}, &scored)
	ours, ref, def := scored["ours"], sim.Eval["reference"], sim.Eval["defaults"]
	t.Logf("%d cards, %d reviews, %d scored; reference fit %.2fs, ours %v (%d steps, converged %v)",
		len(hist), reviews, sim.Items, sim.RefSecs, took.Round(time.Millisecond), res.Steps, res.Converged)
	t.Logf("binding's evaluation: ours %.5f / %.5f, reference %.5f / %.5f, defaults %.5f / %.5f, true weights %.5f / %.5f (log loss / RMSE bins)",
		ours.LogLoss, ours.RMSEBins, ref.LogLoss, ref.RMSEBins, def.LogLoss, def.RMSEBins, sim.Eval["truth"].LogLoss, sim.Eval["truth"].RMSEBins)
	t.Logf("ours      %.4f", res.Weights)
	t.Logf("reference %.4f", sim.Reference)
	if ours.LogLoss > 1.02*ref.LogLoss {
		t.Errorf("our log loss %.5f is above 1.02 × the reference's %.5f", ours.LogLoss, ref.LogLoss)
	}
	if ours.LogLoss >= def.LogLoss || ref.LogLoss >= def.LogLoss {
		t.Errorf("the defaults' log loss %.5f is not beaten (ours %.5f, reference %.5f)", def.LogLoss, ours.LogLoss, ref.LogLoss)
	}
	// EvaluateReference scores the same reviews the same way (the binding
	// computes in float32; the reference's model has no 0.1 floor on the
	// initial stability, which our weights never go below).
	mine, err := fsrsopt.EvaluateReference(res.Weights, hist)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("EvaluateReference of our weights: %.5f / %.5f over %d reviews (%d before the reference's outlier filter)", mine.LogLoss, mine.RMSEBins, mine.Reviews, sim.Items)
	if math.Abs(mine.LogLoss-ours.LogLoss) > 1e-5 || math.Abs(mine.RMSEBins-ours.RMSEBins) > 1e-5 {
		t.Errorf("EvaluateReference %.6f / %.6f disagrees with the binding's %.6f / %.6f", mine.LogLoss, mine.RMSEBins, ours.LogLoss, ours.RMSEBins)
	}
}
