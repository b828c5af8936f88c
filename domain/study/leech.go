package study

import (
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// markLeech tags a card that has just become a leech (issue 27), as
// Anki: its note gets contracts.LeechTag, and so does every card of the
// note (cards carry their note's tags); a card without a note is tagged
// alone. With suspend, the card itself is suspended too. It runs in the
// review's transaction, after the card's new schedule was stored. It
// reports whether it updated the card itself (its version moved on).
func markLeech(ctx context.Context, tx ports.Stores, uid, cardID, noteID string, suspend bool, now time.Time) (bool, error) {
	var cards []ports.CardRow
	var err error
	touched := false
	if noteID != "" {
		notes, err := tx.Notes().GetNotes(ctx, uid, []string{noteID})
		if err != nil {
			return false, kernel.Fail(err)
		}
		if len(notes) == 1 && !slices.Contains(notes[0].Tags, contracts.LeechTag) {
			n := notes[0]
			n.Tags, n.UpdatedAt = append(slices.Clone(n.Tags), contracts.LeechTag), now
			if err := tx.Notes().UpdateNote(ctx, uid, n); err != nil {
				return false, kernel.Fail(err)
			}
		}
		cards, err = tx.Notes().CardsOfNotes(ctx, uid, []string{noteID})
	} else {
		cards, err = tx.Cards().GetCards(ctx, uid, []string{cardID})
	}
	if err != nil {
		return false, kernel.Fail(err)
	}
	for _, c := range cards {
		changed := false
		if !slices.Contains(c.Tags, contracts.LeechTag) {
			c.Tags, changed = append(slices.Clone(c.Tags), contracts.LeechTag), true
		}
		if suspend && c.ID == cardID && !c.Suspended {
			c.Suspended, changed = true, true
		}
		if !changed {
			continue
		}
		c.UpdatedAt = now
		if err := tx.Cards().UpdateCard(ctx, uid, c); err != nil {
			return false, kernel.Fail(err)
		}
		touched = touched || c.ID == cardID
	}
	return touched, nil
}
