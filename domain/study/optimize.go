package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrsopt"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// Optimising a preset's FSRS weights (optimize_parameters): a job reads
// the learner's review history of the cards in the preset's decks, holds
// out a share of the cards, fits the weights on the rest (domain/fsrsopt),
// scores the preset's weights and the fitted ones on the held-out cards'
// reviews, and applies the fitted weights only when their log loss there
// is lower. The report says which and why.

const (
	// optimizeHeldOut is the share of cards held out to compare weights on.
	optimizeHeldOut = 0.2
	// historyPage is how many cards' reviews one read of the history takes.
	historyPage = 500
	// weightDecimals is how many decimals the fitted weights keep (as Anki shows them).
	weightDecimals = 4
)

// OptimizeHandler is the job handler of optimize_parameters jobs, for the
// composition to register.
func OptimizeHandler(d *kernel.Deps) kernel.JobHandler { return optimizeJob{d}.run }

// optimizeJob runs optimize_parameters jobs.
type optimizeJob struct{ *kernel.Deps }

// run is the job handler.
func (o optimizeJob) run(ctx context.Context, run *kernel.JobRun) (any, error) {
	var in library.OptimizeInput
	if err := json.Unmarshal(run.Job.Input, &in); err != nil {
		return nil, fmt.Errorf("optimize job input: %w", err)
	}
	uid := run.Job.UserID
	preset, err := o.Store.Presets().GetPreset(ctx, uid, in.PresetID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil, contracts.Errorf(contracts.KindNotFound, "the preset was deleted (no deck uses it any more); start again from a deck")
	}
	if err != nil {
		return nil, kernel.Fail(err)
	}
	set := library.PresetDefaults(preset.Settings)
	_, day, err := kernel.AccountSettings(ctx, o.Store, uid)
	if err != nil {
		return nil, err
	}
	run.Progress(0, 0, "reading the review history")
	hist, reviews, err := o.history(ctx, uid, preset.ID, day)
	if err != nil {
		return nil, err
	}
	rep := contracts.OptimizeReport{PresetID: preset.ID, Cards: len(hist), Reviews: reviews, PreviousWeights: set.Weights}
	if n := scoredReviews(hist); n < fsrsopt.MinReviews {
		rep.Reason = fmt.Sprintf("Too few reviews to optimise: it needs at least %d reviews made a day or more after the card's previous review, and this preset's decks have %d. The weights are unchanged.", fsrsopt.MinReviews, n)
		return rep, nil
	}
	train, test := fsrsopt.Split(hist, optimizeHeldOut)
	rep.TrainCards, rep.HeldOutCards = len(train), len(test)
	run.Progress(0, 0, "fitting")
	res, err := fsrsopt.Fit(ctx, train, fsrsopt.Options{
		RelearningSteps: len(set.RelearningSteps),
		Progress:        func(p fsrsopt.Progress) { run.Progress(int64(p.Step), int64(p.Total), "fitting") },
	})
	if err != nil {
		if contracts.IsKind(err, contracts.KindInvalid) && ctx.Err() == nil {
			rep.Reason = "Could not optimise: " + err.Error() + ". The weights are unchanged."
			return rep, nil
		}
		return nil, err
	}
	rep.Weights = roundAll(res.Weights, weightDecimals)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	steps := int64(res.Steps)
	run.Progress(steps, steps, "comparing on held-out reviews")
	before, errB := fsrsopt.Evaluate(set.Weights, test)
	after, errA := fsrsopt.Evaluate(rep.Weights, test)
	if errB != nil || errA != nil {
		rep.Reason = "The held-out cards have no review a day or more after the previous one to compare the weights on. The weights are unchanged."
		return rep, nil
	}
	rep.Before, rep.After = optimizeMetrics(before), optimizeMetrics(after)
	if !(after.LogLoss < before.LogLoss) {
		rep.Reason = fmt.Sprintf("The fitted weights predict the held-out reviews no better (log loss %.4f, the preset's %.4f). The weights are unchanged.", after.LogLoss, before.LogLoss)
		return rep, nil
	}
	run.Progress(steps, steps, "applying")
	applied, err := o.apply(ctx, uid, preset.ID, set.Weights, rep.Weights)
	if err != nil {
		return nil, err
	}
	if !applied {
		rep.Reason = "The preset's weights were changed while the job ran, so the fitted weights were not applied; run it again."
		return rep, nil
	}
	rep.Applied = true
	rep.Reason = fmt.Sprintf("The fitted weights predict the held-out reviews better (log loss %.4f → %.4f, RMSE (bins) %.4f → %.4f).",
		before.LogLoss, after.LogLoss, before.RMSEBins, after.RMSEBins)
	// The cards' memory states follow the applied weights, in this job.
	if _, err := Recompute(ctx, o.Deps, run, uid, preset.ID); err != nil {
		return nil, err
	}
	return rep, nil
}

// apply sets the preset's weights to fitted, unless they are no longer
// was (changed meanwhile), and records the previous weights (a
// preset.update change record under the job's id: undo_changes puts them
// back) and an audit row under the same id; it reports whether it did.
func (o optimizeJob) apply(ctx context.Context, uid, presetID string, was, fitted []float64) (bool, error) {
	applied := false
	err := o.Store.InTx(ctx, func(tx ports.Stores) error {
		p, err := tx.Presets().GetPreset(ctx, uid, presetID)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return contracts.Errorf(contracts.KindNotFound, "the preset was deleted while the job ran; nothing was applied")
		}
		if err != nil {
			return kernel.Fail(err)
		}
		if !slices.Equal(library.PresetDefaults(p.Settings).Weights, was) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		now := o.Now()
		var ch kernel.Changes
		if err := library.PutWeights(ctx, tx, uid, p, library.PresetWeights{Weights: fitted, OptimizedAt: &now}, now, &ch); err != nil {
			return err
		}
		applied = true
		if err := ch.Write(ctx, tx, o.Deps); err != nil {
			return err
		}
		// The audit row of the change, under the job's id as the change
		// record is (the audit page's Undo puts the weights back).
		actor, err := kernel.Actor(ctx)
		if err != nil {
			return err
		}
		return kernel.RecordOperation(ctx, tx, o.IDs, now, actor, contracts.AuditOptimized,
			map[string]any{"presetId": presetID, "weights": fitted}, presetID)
	})
	return applied && err == nil, err
}

// history reads the reviews of the preset's cards as the optimiser takes
// them, and counts them.
func (o optimizeJob) history(ctx context.Context, uid, presetID string, day contracts.LearnerDay) ([]fsrsopt.History, int, error) {
	var out []fsrsopt.History
	reviews, after := 0, ""
	for {
		logs, err := o.Store.Reviews().PresetHistory(ctx, uid, presetID, after, historyPage)
		if err != nil {
			return nil, 0, kernel.Fail(err)
		}
		if len(logs) == 0 {
			return out, reviews, nil
		}
		for start := 0; start < len(logs); {
			end := start + 1
			for end < len(logs) && logs[end].CardID == logs[start].CardID {
				end++
			}
			if h := cardHistory(logs[start:end], day); len(h.Reviews) > 0 {
				out = append(out, h)
				reviews += len(h.Reviews)
			}
			start = end
		}
		after = logs[len(logs)-1].CardID
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
	}
}

// cardHistory turns one card's logs (oldest first, no cram) into the
// optimiser's history, as FSRS takes it: manual reschedules are left out,
// a reset to new starts the history over, and a history must start with
// the card's first rating as a new card. Days are the learner's (the
// log's own day, or the learner's day of its time for logs without one),
// never going back.
func cardHistory(logs []ports.ReviewLog, day contracts.LearnerDay) fsrsopt.History {
	h := fsrsopt.History{Card: logs[0].CardID}
	for _, l := range logs {
		if l.Kind == ports.ReviewKindManual {
			if l.State.Phase == contracts.PhaseNew {
				h.Reviews = nil
			}
			continue
		}
		if len(h.Reviews) == 0 && l.PrevPhase != contracts.PhaseNew {
			continue
		}
		d := l.Day
		if d == 0 {
			d = kernel.DayNumber(day, l.ReviewedAt)
		}
		if n := len(h.Reviews); n > 0 {
			d = max(d, h.Reviews[n-1].Day)
		}
		h.Reviews = append(h.Reviews, fsrsopt.Review{Rating: l.Rating, Day: d, At: l.ReviewedAt})
	}
	return h
}

// scoredReviews counts the reviews the optimiser scores: those a day or
// more after the card's previous review.
func scoredReviews(hist []fsrsopt.History) int {
	n := 0
	for _, h := range hist {
		for i := 1; i < len(h.Reviews); i++ {
			if h.Reviews[i].Day > h.Reviews[i-1].Day {
				n++
			}
		}
	}
	return n
}

func optimizeMetrics(m fsrsopt.Metrics) *contracts.OptimizeMetrics {
	return &contracts.OptimizeMetrics{LogLoss: round(m.LogLoss, 4), RMSEBins: round(m.RMSEBins, 4), Reviews: m.Reviews}
}

// roundAll rounds each of v to n decimals.
func roundAll(v []float64, n int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round(x, n)
	}
	return out
}

// round rounds x to n decimals.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}
