package study

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// presetWeights is a preset.update record's Prev and preview: the
// weights (null for the defaults) and when the optimiser fitted them.
type presetWeights struct {
	Weights     []float64  `json:"weights"`
	OptimizedAt *time.Time `json:"weightsOptimizedAt"`
}

// putWeights sets preset p's weights and their optimisation time in tx,
// and adds to ch a preset.update record holding the previous ones; the
// preset's version is its update time in milliseconds. The optimiser's
// run and the undo of a preset.update both go through it.
func putWeights(ctx context.Context, tx ports.Stores, uid string, p contracts.Preset, w presetWeights, now time.Time, ch *kernel.Changes) error {
	prev := map[string]any{"weights": p.Settings.Weights, "weightsOptimizedAt": p.Settings.WeightsOptimizedAt}
	p.Settings.Weights, p.Settings.WeightsOptimizedAt, p.UpdatedAt = slices.Clone(w.Weights), w.OptimizedAt, now
	if err := tx.Presets().UpdatePreset(ctx, uid, p); err != nil {
		return kernel.Fail(err)
	}
	ch.Add(contracts.ChangePresetUpdate, p.ID, now.UnixMilli(), prev, map[string]any{"weights": w.Weights, "weightsOptimizedAt": w.OptimizedAt})
	return nil
}

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
	var prev presetWeights
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	now := s.Now()
	if err := putWeights(ctx, tx, uid, p, prev, now, ch); err != nil {
		return "", err
	}
	chain[r.ItemID] = versionAlias{now: now.UnixMilli()}
	return "", nil
}
