package undo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// undoPreset puts back the weights a preset.update replaced (an optimiser
// run's), unless the preset changed since.
func (s *UndoService) undoPreset(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	p, err := tx.Presets().GetPreset(ctx, uid, r.ItemID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("preset %s no longer exists (no deck uses it)", r.ItemID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	cur := p.UpdatedAt.UnixMilli()
	if changedSince(chain, r.ItemID, cur, r.Version) {
		return fmt.Sprintf("preset %s was changed after this change; read a deck using it (get_deck) and set its weights yourself if needed", r.ItemID), nil
	}
	var prev library.PresetWeights
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	now := s.Now()
	if err := library.PutWeights(ctx, tx, uid, p, prev, now, ch); err != nil {
		return "", err
	}
	chain[r.ItemID] = versionAlias{now: now.UnixMilli()}
	return "", nil
}

// presetBack checks the preset a deck.update's undo writes to, or moves
// the deck back to (library.DeckPrev), before the undo: skipped with a
// reason when that preset changed after the change (through another deck
// sharing it, or an optimiser run); a preset the change deleted (no other
// deck used it) is made again as it was, id, name, settings and times
// (made: its id). Records written before DeckPrev's facts get only the reason.
func (s *UndoService) presetBack(ctx context.Context, tx ports.Stores, uid string, d contracts.Deck, prev library.DeckPrev,
	chain map[string]versionAlias) (made, reason string, err error) {
	id := d.Settings.PresetID
	if prev.PresetID != "" && prev.PresetID != id {
		id = prev.PresetID // the undo moves the deck back to it
	} else if prev.PresetVersion == 0 {
		return "", "", nil // the undo leaves the preset alone
	}
	p, err := tx.Presets().GetPreset(ctx, uid, id)
	switch {
	case contracts.IsKind(err, contracts.KindNotFound):
		if dp := prev.DroppedPreset; dp != nil && dp.ID == id {
			return id, "", kernel.Fail(tx.Presets().CreatePreset(ctx, uid, *dp))
		}
		return "", fmt.Sprintf("deck %s's earlier preset %s no longer exists (it was deleted when no deck used it); read the deck (get_deck) and set its settings yourself (update_deck) if needed", d.ID, id), nil
	case err != nil:
		return "", "", kernel.Fail(err)
	}
	if prev.PresetVersion != 0 && changedSince(chain, id, p.UpdatedAt.UnixMilli(), prev.PresetVersion) {
		return "", fmt.Sprintf("deck %s's preset %s was changed after this change (through a deck sharing it, or optimize_parameters); read the deck (get_deck) and update it yourself if needed", d.ID, id), nil
	}
	return "", "", nil
}

// deckNotBack turns the error of a deck.update's undo into a skip when the
// deck's arguments no longer apply (invalid, a name taken, something gone),
// taking back a preset presetBack made for it (made, its id); other
// errors fail.
func (s *UndoService) deckNotBack(ctx context.Context, tx ports.Stores, uid, deckID, made string, err error) (string, error) {
	if !contracts.IsKind(err, contracts.KindInvalid) && !contracts.IsKind(err, contracts.KindConflict) && !contracts.IsKind(err, contracts.KindNotFound) {
		return "", err
	}
	if made != "" {
		if _, derr := tx.Presets().DeleteUnusedPreset(ctx, uid, made); derr != nil {
			return "", kernel.Fail(derr)
		}
	}
	return fmt.Sprintf("deck %s cannot be put back: %s; read it (get_deck) and update it yourself if needed", deckID, contracts.MessageOf(err)), nil
}
