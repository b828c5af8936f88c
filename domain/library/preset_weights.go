package library

import (
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// PresetWeights is a preset.update record's Prev and preview: the
// weights (null for the defaults) and when the optimiser fitted them.
type PresetWeights struct {
	Weights     []float64  `json:"weights"`
	OptimizedAt *time.Time `json:"weightsOptimizedAt"`
}

// PutWeights sets preset p's weights and their optimisation time in tx,
// and adds to ch a preset.update record holding the previous ones; the
// preset's version is its update time in milliseconds. The optimiser's
// run and the undo of a preset.update both go through it.
func PutWeights(ctx context.Context, tx ports.Stores, uid string, p contracts.Preset, w PresetWeights, now time.Time, ch *kernel.Changes) error {
	prev := map[string]any{"weights": p.Settings.Weights, "weightsOptimizedAt": p.Settings.WeightsOptimizedAt}
	p.Settings.Weights, p.Settings.WeightsOptimizedAt, p.UpdatedAt = slices.Clone(w.Weights), w.OptimizedAt, now
	if err := tx.Presets().UpdatePreset(ctx, uid, p); err != nil {
		return kernel.Fail(err)
	}
	ch.Add(contracts.ChangePresetUpdate, p.ID, now.UnixMilli(), prev, map[string]any{"weights": w.Weights, "weightsOptimizedAt": w.OptimizedAt})
	return nil
}
