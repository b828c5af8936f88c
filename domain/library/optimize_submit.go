package library

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
)

// RecomputeInput is a recompute_memory job's input: the job replays the
// memory states of the preset's cards after its weights changed.
type RecomputeInput struct {
	// PresetID is the preset whose cards' memory states are replayed.
	PresetID string `json:"presetId"`
}

// OptimizeInput is an optimize_parameters job's input.
type OptimizeInput struct {
	// PresetID is the preset whose weights the job fits.
	PresetID string `json:"presetId"`
}

// OptimizeParameters queues a job that optimises the FSRS weights of the
// preset a deck uses (or of the preset named, or of the account's only
// preset) and returns it.
func (s *DeckService) OptimizeParameters(ctx context.Context, args contracts.OptimizeParametersArgs) (contracts.Job, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Job{}, err
	}
	presetID, err := s.presetToOptimize(ctx, uid, args)
	if err != nil {
		return contracts.Job{}, err
	}
	return s.Jobs.Submit(ctx, contracts.JobKindOptimizeParameters, OptimizeInput{PresetID: presetID})
}

// presetToOptimize resolves optimize_parameters' arguments to a preset of
// the user.
func (s *DeckService) presetToOptimize(ctx context.Context, uid string, args contracts.OptimizeParametersArgs) (string, error) {
	switch {
	case args.DeckID != "" && args.PresetID != "":
		return "", contracts.Errorf(contracts.KindInvalid, "give deckId or presetId, not both")
	case args.DeckID != "":
		d, err := LoadDeck(ctx, s.Store, uid, args.DeckID)
		if err != nil {
			return "", err
		}
		if d.Settings.PresetID == "" {
			return "", contracts.Errorf(contracts.KindInvalid, "deck %s has no preset yet; save its settings once (update_deck) and try again", kernel.QuoteID(d.ID))
		}
		return d.Settings.PresetID, nil
	case args.PresetID != "":
		if !kernel.PlausibleID(args.PresetID) {
			return "", presetNotFound(args.PresetID)
		}
		p, err := s.Store.Presets().GetPreset(ctx, uid, args.PresetID)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return "", presetNotFound(args.PresetID)
		}
		return p.ID, kernel.Fail(err)
	}
	ps, err := s.Store.Presets().ListPresets(ctx, uid)
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(ps) != 1 {
		return "", contracts.Errorf(contracts.KindInvalid, "the account has %d presets; name the one to optimise with deckId (a deck that uses it) or presetId", len(ps))
	}
	return ps[0].ID, nil
}
