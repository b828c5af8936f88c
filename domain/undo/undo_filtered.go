package undo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// undoReturn gathers a card a filtered deck's empty or rebuild sent home
// back into that deck (a card.return record), unless the card changed
// since, the deck is gone or no longer filtered, or another filtered deck
// holds the card. Its own record, a card.update of the deck as a
// gathering writes, sends it home again when undone.
func (s *UndoService) undoReturn(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	rows, cur, gone, err := s.cardNow(ctx, tx, uid, r.ItemID, chain)
	if gone != "" || err != nil {
		return gone, err
	}
	card := rows[0]
	if cur != r.Version {
		return fmt.Sprintf("card %s was changed after it was sent home; gather it again with filtered_deck rebuild if needed", r.ItemID), nil
	}
	var prev struct {
		DeckID string `json:"deckId"`
	}
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	if reason, err := s.filteredNow(ctx, tx, uid, prev.DeckID); reason != "" || err != nil {
		return reason, err
	}
	moved, err := tx.Filtered().Gather(ctx, uid, prev.DeckID, []string{card.ID}, s.Now())
	if contracts.IsKind(err, contracts.KindConflict) {
		return fmt.Sprintf("card %s cannot go back to filtered deck %s: %s", r.ItemID, prev.DeckID, contracts.MessageOf(err)), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	if len(moved) == 0 {
		return fmt.Sprintf("card %s is in a filtered deck now; empty it first, then undo again", r.ItemID), nil
	}
	ch.Add(contracts.ChangeCardUpdate, card.ID, card.Version+1, map[string]any{"deckId": card.DeckID}, map[string]any{"deckId": prev.DeckID})
	chain[r.ItemID] = versionAlias{now: card.Version + 1, as: r.Version - 1}
	return "", nil
}

// filteredNow says why deckID cannot take cards back: gone, in the trash
// or no longer a filtered deck ("" when it can).
func (s *UndoService) filteredNow(ctx context.Context, tx ports.Stores, uid, deckID string) (string, error) {
	if _, err := tx.Decks().DeckWithoutCounts(ctx, uid, deckID); contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("filtered deck %s no longer exists or is in the trash: restore it (restore_items), then undo again", deckID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	if _, err := tx.Filtered().Filtered(ctx, uid, deckID); contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("deck %s is no longer a filtered deck", deckID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	return "", nil
}

// filteredSearch is a filtered deck's saved search as a filtered.update
// record holds it.
type filteredSearch struct {
	Search     string    `json:"search"`
	Limit      int       `json:"limit"`
	Order      string    `json:"order"`
	Reschedule bool      `json:"reschedule"`
	BuiltAt    time.Time `json:"builtAt"`
}

// undoFilteredUpdate puts back the saved search a rebuild replaced (a
// filtered.update record), unless the deck was rebuilt since: its
// version is the build time. The cards the rebuild gathered and sent
// home have records of their own.
func (s *UndoService) undoFilteredUpdate(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	row, err := tx.Filtered().Filtered(ctx, uid, r.ItemID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("deck %s is no longer a filtered deck", r.ItemID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	if changedSince(chain, r.ItemID, row.BuiltAt.UnixMilli(), r.Version) {
		return fmt.Sprintf("filtered deck %s was rebuilt after this change; rebuild it yourself (filtered_deck) if needed", r.ItemID), nil
	}
	var prev filteredSearch
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	was := filteredSearch{Search: row.Search, Limit: row.Limit, Order: row.Order, Reschedule: row.Reschedule, BuiltAt: row.BuiltAt}
	row.Search, row.Limit, row.Order, row.Reschedule, row.BuiltAt = prev.Search, prev.Limit, prev.Order, prev.Reschedule, prev.BuiltAt
	if err := tx.Filtered().SaveFiltered(ctx, uid, row); err != nil {
		return "", kernel.Fail(err)
	}
	ch.Add(contracts.ChangeFilteredUpdate, r.ItemID, prev.BuiltAt.UnixMilli(), searchMap(was), searchMap(prev))
	chain[r.ItemID] = versionAlias{now: prev.BuiltAt.UnixMilli()}
	return "", nil
}

func searchMap(f filteredSearch) map[string]any {
	return map[string]any{"search": f.Search, "limit": f.Limit, "order": f.Order, "reschedule": f.Reschedule, "builtAt": f.BuiltAt}
}

// sendsHome reports whether patch, a card.update record's previous
// values, only moves a card a filtered deck holds back to its home deck:
// the record of a gathering.
func sendsHome(held ports.CardRow, patch contracts.CardPatch) bool {
	return held.HomeDeckID != "" && patch.DeckID != nil && *patch.DeckID == held.HomeDeckID &&
		patch.Front == nil && patch.Back == nil && patch.Tags == nil && patch.Suspended == nil && patch.Flag == nil
}

// undoGather sends a card a filtered deck gathered home, as update_cards
// moving it would, and records it as a card.return (not a card.update of
// the deck): undoing the undo gathers it back into the filtered deck,
// its home kept.
func (s *UndoService) undoGather(ctx context.Context, tx ports.Stores, uid string, held ports.CardRow, patch contracts.CardPatch,
	r contracts.ChangeRecord, chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	var moved kernel.Changes // the move's card.update, replaced by the card.return below
	out, err := s.Cards.ApplyPatch(ctx, tx, uid, patch, &moved)
	if err != nil {
		return "", err
	}
	if out.Status != contracts.OutcomeUpdated {
		return out.Reason, nil
	}
	ch.Add(contracts.ChangeCardReturn, held.ID, held.Version+1, map[string]any{"deckId": held.DeckID}, map[string]any{"deckId": held.HomeDeckID})
	chain[r.ItemID] = versionAlias{now: held.Version + 1, as: r.Version - 1}
	return "", nil
}
