package study

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// BuryCards buries cards until the start of the learner's next day: no
// study session serves them before then, and they use no slot of the
// daily limits. Per item: updated, not_found, or duplicate (the same
// card twice).
func (s *StudyService) BuryCards(ctx context.Context, args contracts.BuryCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("cardIds", len(args.CardIDs), contracts.MaxBulkItems); err != nil {
		return contracts.BulkResult{}, err
	}
	var res contracts.BulkResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		day, err := kernel.LearnerDay(ctx, tx, uid)
		if err != nil {
			return err
		}
		want := slices.DeleteFunc(slices.Clone(args.CardIDs), func(id string) bool { return !kernel.PlausibleID(id) })
		// Their burials before, for the change records (one read).
		rows, err := tx.Cards().GetCards(ctx, uid, want)
		if err != nil {
			return kernel.Fail(err)
		}
		until := day.Next(now)
		buried, err := tx.Cards().BuryCards(ctx, uid, want, until)
		if err != nil {
			return kernel.Fail(err)
		}
		var ch kernel.Changes
		for _, c := range rows {
			if slices.Contains(buried, c.ID) && (c.BuriedUntil == nil || c.BuriedUntil.Before(until)) {
				AddBurial(&ch, c.ID, c.BuriedUntil, &until)
			}
		}
		if err := ch.Write(ctx, tx, s.Deps); err != nil {
			return err
		}
		res = contracts.BulkResult{Items: make([]contracts.ItemOutcome, len(args.CardIDs)), Counts: map[string]int{}}
		first := map[string]int{}
		for i, id := range args.CardIDs {
			out := contracts.ItemOutcome{Index: i, ID: id, Status: contracts.OutcomeUpdated}
			if j, seen := first[id]; seen {
				out.Status, out.Reason = contracts.OutcomeDuplicate, fmt.Sprintf("the same card as item %d of cardIds", j)
			} else {
				first[id] = i
				if !slices.Contains(buried, id) {
					out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("card %s not found", kernel.QuoteID(id))
				}
			}
			res.Items[i] = out
			res.Counts[string(out.Status)]++
		}
		return nil
	})
	return res, err
}

// Unbury ends the burial of the user's buried cards, of one deck or of
// every deck: they are back in today's queues. Not found for an unknown
// deck.
func (s *StudyService) Unbury(ctx context.Context, args contracts.UnburyArgs) (contracts.UnburyResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.UnburyResult{}, err
	}
	var res contracts.UnburyResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if args.DeckID != "" {
			if _, err := library.LoadDeck(ctx, tx, uid, args.DeckID); err != nil {
				return err
			}
		}
		now := s.Now()
		// The burials it ends, for the change records (one read).
		was, err := tx.Cards().BuriedCards(ctx, uid, args.DeckID, now)
		if err != nil {
			return kernel.Fail(err)
		}
		n, err := tx.Cards().Unbury(ctx, uid, args.DeckID, now)
		if err != nil {
			return kernel.Fail(err)
		}
		res.Unburied = n
		var ch kernel.Changes
		for _, id := range slices.Sorted(maps.Keys(was)) {
			until := was[id]
			AddBurial(&ch, id, &until, &now)
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	return res, err
}

// AddBurial records in ch that a card's burial went from was to now (nil:
// none): a card.bury record whose Version is the burial left, so that
// undoing it is skipped once the burial changed again.
func AddBurial(ch *kernel.Changes, cardID string, was, now *time.Time) {
	ch.Add(contracts.ChangeCardBury, cardID, BurialVersion(now), map[string]any{"buriedUntil": was}, map[string]any{"buriedUntil": now})
}

// BurialVersion is a burial as a change record's version: its time in
// milliseconds, 0 for none.
func BurialVersion(until *time.Time) int64 {
	if until == nil {
		return 0
	}
	return until.UnixMilli()
}
