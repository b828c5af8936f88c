package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// Memory states follow the weights (issue 28 §1): when a preset's weights
// change, each of its cards' stability and difficulty is replayed from
// its review history under the new weights, in the learner's day
// (fsrs.Replay: a Forget starts the history over). Due dates, phases and
// intervals stay: only the memory state moves, unless the preset says
// "reschedule cards on change" (recompute_due.go). A page of cards is read
// and written in one short transaction; a card reviewed meanwhile (its
// version moved) keeps the state its review gave it.

// RecomputeReport is a recompute_memory job's result.
type RecomputeReport struct {
	PresetID string `json:"presetId"`
	// Cards is how many cards with a review history were replayed;
	// Updated how many stored states changed; Skipped how many were
	// reviewed or changed while the job ran and kept their state.
	Cards   int `json:"cards"`
	Updated int `json:"updated"`
	Skipped int `json:"skipped"`
	// Moved is how many of the updated cards' due dates moved (only with
	// the preset's "reschedule cards on change").
	Moved int `json:"moved,omitempty"`
}

// RecomputeHandler is the job handler of recompute_memory jobs, for the
// composition to register.
func RecomputeHandler(d *kernel.Deps) kernel.JobHandler {
	return func(ctx context.Context, run *kernel.JobRun) (any, error) {
		var in library.RecomputeInput
		if err := json.Unmarshal(run.Job.Input, &in); err != nil {
			return nil, fmt.Errorf("recompute job input: %w", err)
		}
		return Recompute(ctx, d, run, run.Job.UserID, in.PresetID)
	}
}

// Recompute replays the memory state of every card of the user's preset
// under its current weights and stores those that changed, reporting
// progress on run. Not found when the preset is gone.
func Recompute(ctx context.Context, d *kernel.Deps, run *kernel.JobRun, uid, presetID string) (RecomputeReport, error) {
	rep := RecomputeReport{PresetID: presetID}
	preset, err := d.Store.Presets().GetPreset(ctx, uid, presetID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return rep, contracts.Errorf(contracts.KindNotFound, "the preset was deleted (no deck uses it any more)")
	}
	if err != nil {
		return rep, kernel.Fail(err)
	}
	set := contracts.DeckSettings{}.WithPreset(preset).WithDefaults()
	_, day, err := kernel.AccountSettings(ctx, d.Store, uid)
	if err != nil {
		return rep, err
	}
	run.Progress(0, 0, "recomputing memory states")
	after := ""
	for {
		logs, err := d.Store.Reviews().PresetHistory(ctx, uid, presetID, after, historyPage)
		if err != nil {
			return rep, kernel.Fail(err)
		}
		if len(logs) == 0 {
			run.Progress(int64(rep.Cards), int64(rep.Cards), "memory states recomputed")
			return rep, nil
		}
		states := map[string]contracts.CardState{}
		for start := 0; start < len(logs); {
			end := start + 1
			for end < len(logs) && logs[end].CardID == logs[start].CardID {
				end++
			}
			st, n, err := fsrs.Replay(d.Sched, set, day, ReplayEntries(logs[start:end]))
			if err != nil {
				return rep, err
			}
			if n > 0 {
				states[logs[start].CardID] = st
			}
			start = end
		}
		after = logs[len(logs)-1].CardID
		if err := storeMemory(ctx, d, uid, set, day, states, &rep); err != nil {
			return rep, err
		}
		run.Progress(int64(rep.Cards), 0, "recomputing memory states")
		if err := ctx.Err(); err != nil {
			return rep, err
		}
	}
}

// ReplayEntries turns one card's review logs (oldest first, no cram) into
// fsrs.Replay's history: ratings, and a reset where a manual entry made
// the card new (Forget); other manual entries set a date, not a memory.
func ReplayEntries(logs []ports.ReviewLog) []fsrs.Entry {
	out := make([]fsrs.Entry, 0, len(logs))
	for _, l := range logs {
		switch {
		case l.Kind == ports.ReviewKindManual && l.State.Phase == contracts.PhaseNew:
			out = append(out, fsrs.Entry{At: l.ReviewedAt, Reset: true})
		case (l.Kind == "" || l.Kind == ports.ReviewKindReview) && slices.Contains(contracts.Ratings, l.Rating):
			out = append(out, fsrs.Entry{At: l.ReviewedAt, Rating: l.Rating})
		}
	}
	return out
}

// storeMemory writes the replayed stability and difficulty of a page of
// cards in one transaction, each under its version; with the preset's
// "reschedule cards on change", review cards' due dates move to their
// new intervals too (rescheduleDue).
func storeMemory(ctx context.Context, d *kernel.Deps, uid string, set contracts.DeckSettings, day contracts.LearnerDay,
	states map[string]contracts.CardState, rep *RecomputeReport) error {
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return d.Store.InTx(ctx, func(tx ports.Stores) error {
		rows, err := tx.Cards().GetCards(ctx, uid, ids)
		if err != nil {
			return kernel.Fail(err)
		}
		now := d.Now()
		var ups []memoryUpdate
		for _, c := range rows {
			rep.Cards++
			st := states[c.ID]
			if lr := c.State.LastReview; lr != nil && st.LastReview != nil && lr.After(*st.LastReview) {
				rep.Skipped++ // reviewed after the history was read: its review used the new weights
				continue
			}
			if c.State.Phase == contracts.PhaseNew || (same(c.State.Stability, st.Stability) && same(c.State.Difficulty, st.Difficulty)) {
				continue
			}
			next := c.State
			next.Stability, next.Difficulty = st.Stability, st.Difficulty
			ups = append(ups, memoryUpdate{card: c, next: next})
		}
		if set.RescheduleOnChange {
			if err := rescheduleDue(ctx, tx, d.Sched, uid, set, day, now, ups); err != nil {
				return err
			}
		}
		for _, u := range ups {
			switch err := tx.Cards().UpdateState(ctx, uid, u.card.ID, u.card.Version, u.next, now); {
			case contracts.IsKind(err, contracts.KindConflict), contracts.IsKind(err, contracts.KindNotFound):
				rep.Skipped++
			case err != nil:
				return kernel.Fail(err)
			default:
				rep.Updated++
				if !u.next.Due.Equal(u.card.State.Due) {
					rep.Moved++
				}
			}
		}
		return nil
	})
}

// same reports whether two stored memory values are equal to the
// precision a review keeps.
func same(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
