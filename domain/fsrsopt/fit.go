package fsrsopt

import (
	"context"
	"math"

	"github.com/takhtabush/takhtabush/contracts"
)

// Options tune Fit; the zero value is the default.
type Options struct {
	// RelearningSteps is the number of relearning steps of the deck (the
	// reference bounds w17 and w18 by it when above one); 0 means 1.
	RelearningSteps int
	// MaxIterations bounds the optimiser's steps; 0 means 500.
	MaxIterations int
	// Progress, when set, is called after pretraining and after each
	// step, from Fit's goroutine.
	Progress func(Progress)
}

// Progress reports how far a fit has come.
type Progress struct {
	// Step is the steps taken so far; Total the most there will be (the
	// fit may stop earlier once the objective no longer improves).
	Step, Total int
	// Loss is the best objective so far (log loss plus the L2 pull).
	Loss float64
}

// Result is a fit.
type Result struct {
	// Weights are the 21 fitted FSRS-6 weights, within
	// contracts.WeightBounds.
	Weights []float64 `json:"weights"`
	// Pretrained are the weights Fit started from: the pretrained w0-w3
	// and the defaults for the rest.
	Pretrained []float64 `json:"pretrained"`
	// Steps is the number of optimiser steps taken; Converged is true when
	// the fit stopped because the objective no longer improved.
	Steps     int  `json:"steps"`
	Converged bool `json:"converged"`
	// Train scores the fitted weights on the histories fitted, as
	// Evaluate does (every scored review).
	Train Metrics `json:"train"`
}

// The reference's training constants: the learning rate of Adam, the
// strength of the L2 pull to the start and the spread of each weight
// across users it divides by.
const (
	learningRate = 0.04
	gamma        = 1.0
	// patience is how many steps without an improvement of at least
	// minGain end the fit.
	patience = 25
	minGain  = 1e-6
)

var paramsStddev = [NumWeights]float64{6.43, 9.66, 17.58, 27.85, 0.57, 0.28, 0.6, 0.12, 0.39, 0.18, 0.33, 0.3, 0.09, 0.16, 0.57, 0.25,
	1.03, 0.31, 0.32, 0.14, 0.27}

// Fit fits the FSRS-6 weights to histories. Fewer than MinReviews scored
// reviews is invalid input. It stops with ctx's error when ctx ends.
func Fit(ctx context.Context, histories []History, opt Options) (Result, error) {
	all, err := prepare(histories, false)
	if err != nil {
		return Result{}, err
	}
	if all.scored < MinReviews {
		return Result{}, contracts.Errorf(contracts.KindInvalid,
			"optimising FSRS weights needs at least %d reviews made a day or more after the card's previous review; this history has %d", MinReviews, all.scored)
	}
	// As the reference: without its outliers and in its order, unless
	// the outlier filter leaves too little to fit.
	ds, _ := prepare(histories, true)
	if ds.scored < MinReviews {
		ds = all
	}
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = 500
	}
	lo, hi := bounds()
	init, counts := pretrain(ds)
	var start [NumWeights]float64
	copy(start[:], contracts.DefaultWeights)
	copy(start[:4], init[:])
	clip(&start, opt.RelearningSteps, lo, hi)

	// The reference sums the weighted losses of a batch and adds
	// gamma·batch/total of the L2 term: over an epoch, the sum of the
	// losses plus gamma times the L2 term. Here the loss is the mean.
	scale := gamma / ds.wsum
	eval := func(w *[NumWeights]float64, grad *[NumWeights]float64) float64 {
		l := objective(w, ds, grad)
		for k := range NumWeights {
			dw := (w[k] - start[k]) / paramsStddev[k]
			l += scale * dw * dw
			grad[k] += scale * 2 * dw / paramsStddev[k]
		}
		return l
	}
	w := start
	var grad [NumWeights]float64
	best := w
	bestLoss := eval(&w, &grad)
	report := func(step int) {
		if opt.Progress != nil {
			opt.Progress(Progress{Step: step, Total: opt.MaxIterations, Loss: bestLoss})
		}
	}
	report(0)
	var m, v [NumWeights]float64
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	since := 0
	res := Result{}
	for step := 1; step <= opt.MaxIterations; step++ {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		// Cosine annealing of the learning rate over the steps.
		lr := learningRate * 0.5 * (1 + math.Cos(math.Pi*float64(step-1)/float64(opt.MaxIterations)))
		b1, b2 := 1-math.Pow(beta1, float64(step)), 1-math.Pow(beta2, float64(step))
		for k := range NumWeights {
			m[k] = beta1*m[k] + (1-beta1)*grad[k]
			v[k] = beta2*v[k] + (1-beta2)*grad[k]*grad[k]
			w[k] -= lr * (m[k] / b1) / (math.Sqrt(v[k]/b2) + eps)
		}
		clip(&w, opt.RelearningSteps, lo, hi)
		l := eval(&w, &grad)
		res.Steps = step
		if l < bestLoss-minGain {
			since = 0
		} else {
			since++
		}
		if l < bestLoss && !math.IsNaN(l) {
			best, bestLoss = w, l
		}
		report(step)
		if since >= patience {
			res.Converged = true
			break
		}
	}
	// As the reference: w0-w3 are put in order and filled again.
	fitted := map[int]float64{}
	for g := range counts {
		fitted[g] = best[g-1]
	}
	ordered := smoothAndFill(fitted, counts)
	copy(best[:4], ordered[:])
	clip(&best, opt.RelearningSteps, lo, hi)
	res.Weights = best[:]
	res.Pretrained = start[:]
	res.Train = score(&best, all)
	return res, nil
}

// bounds returns the reference's clamps of the weights: contracts'
// WeightBounds, with w0-w3 from 0.1 and w19 from 0.01 (short-term
// stability is on). clip bounds w17 and w18 further.
func bounds() (lo, hi [NumWeights]float64) {
	for k := range NumWeights {
		lo[k], hi[k] = contracts.WeightBounds[k][0], contracts.WeightBounds[k][1]
	}
	for k := range 4 {
		lo[k] = initSMin
	}
	lo[19] = max(lo[19], 0.01)
	return lo, hi
}

// clip clamps w into the bounds; with more than one relearning step, w17
// and w18 are also bounded so that the stability after a lapse and its
// relearning steps does not exceed the stability before it.
func clip(w *[NumWeights]float64, relearning int, lo, hi [NumWeights]float64) {
	for k := range NumWeights {
		if math.IsNaN(w[k]) {
			w[k] = contracts.DefaultWeights[k]
		}
		w[k] = min(max(w[k], lo[k]), hi[k])
	}
	if relearning > 1 {
		v := -(math.Log(w[11]) + math.Log(math.Pow(2, w[13])-1) + w[14]*0.3) / float64(relearning)
		ceil := min(math.Sqrt(max(v, 0.01)), 2)
		w[17] = min(w[17], ceil)
		w[18] = min(w[18], ceil)
	}
}
