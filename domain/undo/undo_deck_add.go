package undo

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// deckAsAdded says why a deck a deck.add record names cannot go to the
// trash ("" when it can): a deck its creation recorded (a version, its
// update time in milliseconds, set) must still be as created and hold no
// card, so undoing never trashes a person's later work; the cards the
// same operation added are undone before it (newest first). A record
// with no version is a restore_items', whose deck goes back to the trash
// with the cards it came back with.
func (s *UndoService) deckAsAdded(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias) (string, error) {
	if r.Version == 0 {
		return "", nil
	}
	d, err := tx.Decks().GetDeck(ctx, uid, r.ItemID, s.Now())
	if contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("deck %s no longer exists or is in the trash", r.ItemID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	if changedSince(chain, r.ItemID, d.UpdatedAt.UnixMilli(), r.Version) {
		return fmt.Sprintf("deck %s was changed after it was created; delete it yourself (delete_deck) if it should go", r.ItemID), nil
	}
	if n := d.Counts.Total; n > 0 {
		return fmt.Sprintf("deck %s holds %d card(s) added after it was created; delete it yourself (delete_deck) if it should go with them", r.ItemID, n), nil
	}
	return "", nil
}
