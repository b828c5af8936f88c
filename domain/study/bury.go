package study

import (
	"context"
	"fmt"
	"slices"

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
		buried, err := tx.Cards().BuryCards(ctx, uid, want, day.Next(now))
		if err != nil {
			return kernel.Fail(err)
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
		n, err := tx.Cards().Unbury(ctx, uid, args.DeckID, s.Now())
		res.Unburied = n
		return kernel.Fail(err)
	})
	return res, err
}
