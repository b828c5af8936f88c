package study

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// The random new-card order (issue 27 §6) draws from every new card of
// the deck, not from the first cards added: the ids of all of them are
// ordered by a hash of the learner's day and the id, so the order is the
// same all day (every session, the snapshot and the plan take the same
// cards) and another the next day; the cards are read in that order as
// far as the queue needs.

// randomNew is a deck's new cards in the day's random order.
type randomNew struct{ ids []string }

// drawNew orders the deck's new cards not buried at now by seed (the
// user and the learner's date).
func drawNew(ctx context.Context, tx ports.Stores, uid, deckID string, now time.Time, seed string) (*randomNew, error) {
	ids, err := tx.Cards().FreshCardIDs(ctx, uid, deckID, now)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	keys := make(map[string]uint64, len(ids))
	for _, id := range ids {
		keys[id] = tieKey(seed, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return &randomNew{ids: ids}, nil
}

// first reads the first n cards of the order, in order.
func (r *randomNew) first(ctx context.Context, tx ports.Stores, uid string, n int) ([]ports.CardRow, error) {
	ids := r.ids[:min(n, len(r.ids))]
	got, err := tx.Cards().GetCards(ctx, uid, ids)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(got, func(a, b ports.CardRow) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return got, nil
}
