package study

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// RatingManual is the rating of a manual review-log entry: a reschedule
// or reset by the user, not a recall. Stats, limits and FSRS skip it.
const RatingManual contracts.Rating = "manual"

// RescheduleCards sets the due date of cards (the start of a learner's
// day: DueDate, or a day drawn per card within Days from today) or resets
// them to new, in one transaction, appending a manual review-log entry for
// each card changed. A card in a learning step becomes a review card;
// memory state (stability, difficulty, last review) is kept, so FSRS sees
// the next rating as a review after the real elapsed time, as Anki does.
// The interval becomes the days from the last review to the new due day,
// or stays with KeepInterval. New cards cannot get a due date (study them,
// or leave them new).
func (s *StudyService) RescheduleCards(ctx context.Context, args contracts.RescheduleCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("cardIds", len(args.CardIDs), contracts.MaxBulkItems); err != nil {
		return contracts.BulkResult{}, err
	}
	modes := 0
	for _, on := range []bool{args.DueDate != "", args.Days != nil, args.Reset} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "give exactly one of dueDate, days and reset")
	}
	if args.Reset && args.KeepInterval {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "keepInterval applies to dueDate or days, not to reset")
	}
	var date time.Time
	if args.DueDate != "" {
		if date, err = time.Parse(time.DateOnly, args.DueDate); err != nil {
			return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "dueDate must be a date like 2026-12-24, got %q", args.DueDate)
		}
	}
	if args.Days != nil && (len(args.Days) != 2 || args.Days[0] < 0 || args.Days[0] > args.Days[1] || args.Days[1] > contracts.DefaultMaximumIntervalDays) {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "days must be [min, max] with 0 <= min <= max <= %d, got %v", contracts.DefaultMaximumIntervalDays, args.Days)
	}
	var res contracts.BulkResult
	// A dry run is this very transaction, rolled back.
	err = kernel.InTxOrDry(ctx, s.Store, args.DryRun, func(tx ports.Stores) error {
		now := s.Now()
		var ch kernel.Changes
		day, err := kernel.LearnerDay(ctx, tx, uid)
		if err != nil {
			return err
		}
		today := day.Date(now)
		if !date.IsZero() && date.Before(today) {
			return contracts.Errorf(contracts.KindInvalid, "dueDate %s is before today (%s in the learner's day)", args.DueDate, day.DateString(now))
		}
		var want []string
		for _, id := range args.CardIDs {
			if kernel.PlausibleID(id) {
				want = append(want, id)
			}
		}
		rows, err := tx.Cards().GetCards(ctx, uid, want)
		if err != nil {
			return kernel.Fail(err)
		}
		byID := make(map[string]ports.CardRow, len(rows))
		for _, r := range rows {
			byID[r.ID] = r
		}
		res = contracts.BulkResult{Items: make([]contracts.ItemOutcome, len(args.CardIDs)), Counts: map[string]int{}}
		first := map[string]int{}
		for i, id := range args.CardIDs {
			out := contracts.ItemOutcome{Index: i, ID: id, Status: contracts.OutcomeUpdated}
			card, found := byID[id]
			j, seen := first[id]
			switch {
			case seen:
				out.Status, out.Reason = contracts.OutcomeDuplicate, fmt.Sprintf("the same card as item %d of cardIds", j)
			case !found:
				out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("card %s not found", kernel.QuoteID(id))
			case !args.Reset && card.State.Phase == contracts.PhaseNew:
				out.Status, out.Reason = contracts.OutcomeInvalid, "a new card has no schedule to move; study it first"
			default:
				target := date
				if args.Days != nil {
					target = today.AddDate(0, 0, drawDays(id, today, args.Days[0], args.Days[1]))
				}
				if err := s.reschedule(ctx, tx, uid, card, day, now, target, args, &ch); err != nil {
					return err
				}
			}
			if !seen {
				first[id] = i
			}
			res.Items[i] = out
			res.Counts[string(out.Status)]++
		}
		if args.DryRun {
			res.DryRun, res.Changes = true, ch.Preview()
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	return res, err
}

// drawDays picks a day count in [lo, hi] for a card, the same for the same
// card on the same day (a retried call moves it to the same day).
func drawDays(cardID string, today time.Time, lo, hi int) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s", cardID, today.Format(time.DateOnly))
	return lo + int(h.Sum64()%uint64(hi-lo+1))
}

// reschedule applies one card's new state and logs it as a manual entry.
func (s *StudyService) reschedule(ctx context.Context, tx ports.Stores, uid string, card ports.CardRow, day contracts.LearnerDay,
	now, target time.Time, args contracts.RescheduleCardsArgs, ch *kernel.Changes) error {
	next := card.State
	if args.Reset {
		next = contracts.CardState{Phase: contracts.PhaseNew, Due: now}
	} else {
		next.Phase, next.Step = contracts.PhaseReview, 0
		next.Due = day.StartOfDate(target)
		if !args.KeepInterval {
			from := now
			if next.LastReview != nil {
				from = *next.LastReview
			}
			next.ScheduledDays = max(1, day.DaysBetween(from, next.Due))
		}
		next.ScheduledDays = max(next.ScheduledDays, 1)
	}
	switch err := tx.Cards().UpdateState(ctx, uid, card.ID, card.Version, next, now); {
	case contracts.IsKind(err, contracts.KindConflict):
		return contracts.Errorf(contracts.KindConflict, "card %s was changed by another request meanwhile; call reschedule_cards again", card.ID)
	case err != nil:
		return kernel.Fail(err)
	}
	ch.Add(contracts.ChangeCardSchedule, card.ID, card.Version+1, map[string]any{"state": card.State}, map[string]any{"state": next})
	log := ports.ReviewLog{
		ID: s.IDs.NewID(), UserID: uid, CardID: card.ID, DeckID: cmp.Or(card.HomeDeckID, card.DeckID), Rating: RatingManual, PrevPhase: card.State.Phase,
		State: next, ReviewedAt: now, Kind: ports.ReviewKindManual, Day: kernel.DayNumber(day, now), PrevInterval: card.State.ScheduledDays,
	}
	if err := tx.Reviews().AppendReview(ctx, log); err != nil {
		return kernel.Fail(err)
	}
	return nil
}
