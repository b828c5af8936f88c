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
