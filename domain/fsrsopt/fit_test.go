package fsrsopt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestFitBeatsDefaultsOnOwnScheduler fits a learner simulated with the
// project's scheduler whose memory follows known weights: the fit must
// score better than the defaults on held-out cards, and come close to the
// true weights' own score there.
func TestFitBeatsDefaultsOnOwnScheduler(t *testing.T) {
	hist := simulate(t, trueWeights, 700, 4, 300, 11)
	train, test := Split(hist, 0.2)
	began := time.Now()
	res, err := Fit(context.Background(), train, Options{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if err := contracts.CheckWeights(res.Weights); err != nil {
		t.Fatalf("fitted weights out of bounds: %v", err)
	}
	def, _ := Evaluate(contracts.DefaultWeights, test)
	fit, _ := Evaluate(res.Weights, test)
	tru, _ := Evaluate(trueWeights, test)
	t.Logf("%d train scored reviews, %d steps (converged %v) in %v", res.Train.Reviews, res.Steps, res.Converged, took.Round(time.Millisecond))
	t.Logf("held out (%d reviews): defaults %.4f/%.4f, fit %.4f/%.4f, truth %.4f/%.4f (log loss/RMSE bins)",
		fit.Reviews, def.LogLoss, def.RMSEBins, fit.LogLoss, fit.RMSEBins, tru.LogLoss, tru.RMSEBins)
	t.Logf("weights %.4f", res.Weights)
	ds, _ := prepare(train, true)
	var tw [NumWeights]float64
	copy(tw[:], trueWeights)
	t.Logf("train: fit %+v truth %+v", res.Train, score(&tw, ds))
	copy(tw[:], contracts.DefaultWeights)
	t.Logf("train: defaults %+v", score(&tw, ds))
	if fit.LogLoss >= def.LogLoss || fit.RMSEBins >= def.RMSEBins {
		t.Errorf("the fit (%.4f, %.4f) does not beat the defaults (%.4f, %.4f) on held-out cards", fit.LogLoss, fit.RMSEBins, def.LogLoss, def.RMSEBins)
	}
	if fit.LogLoss > tru.LogLoss*1.02 {
		t.Errorf("the fit's held-out log loss %.4f is more than 2%% above the true weights' %.4f", fit.LogLoss, tru.LogLoss)
	}
}

// TestFitTooFewReviews asks for a history too short to fit.
func TestFitTooFewReviews(t *testing.T) {
	hist := simulate(t, trueWeights, 20, 2, 30, 3)
	_, err := Fit(context.Background(), hist, Options{})
	if !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(err.Error(), "at least 300 reviews") {
		t.Fatalf("got %v, want an invalid error asking for at least 300 reviews", err)
	}
}

// TestFitCancelAndProgress cancels a fit from its progress callback: the
// fit reports progress in order and returns the context's error.
func TestFitCancelAndProgress(t *testing.T) {
	hist := simulate(t, trueWeights, 150, 5, 120, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Progress
	_, err := Fit(ctx, hist, Options{MaxIterations: 400, Progress: func(p Progress) {
		seen = append(seen, p)
		if p.Step == 5 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if len(seen) != 6 {
		t.Fatalf("got %d progress reports, want 6 (steps 0-5)", len(seen))
	}
	for i, p := range seen {
		if p.Step != i || p.Total != 400 || p.Loss <= 0 || (i > 0 && p.Loss > seen[i-1].Loss) {
			t.Errorf("report %d: %+v (after %+v)", i, p, seen[max(i-1, 0)])
		}
	}
}
