package library

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Presets: a deck's learning and relearning steps, maximum interval,
// desired retention and FSRS weights live in a preset that decks share.
// Every deck gets a preset of its own when it is created (older decks got
// one in a migration); update_deck's presetId moves a deck to another
// deck's preset, or to a fresh copy ("new"). A preset no deck uses any
// more is deleted.

// ListPresets returns the acting user's presets with the number of decks
// using each.
func (s *DeckService) ListPresets(ctx context.Context) ([]contracts.Preset, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.Store.Presets().ListPresets(ctx, uid)
	for i := range ps {
		ps[i].Settings = PresetDefaults(ps[i].Settings)
	}
	return ps, kernel.Fail(err)
}

// PresetDefaults fills in the default steps and weights, as reads show them.
func PresetDefaults(p contracts.PresetSettings) contracts.PresetSettings {
	return contracts.DeckSettings{}.WithPreset(contracts.Preset{Settings: p}).WithDefaults().PresetOf()
}

// NewPreset stores a preset holding the preset fields of set, named name,
// and points set at it.
func NewPreset(ctx context.Context, tx ports.Stores, d *kernel.Deps, uid, name string, set *contracts.DeckSettings) error {
	return newPresetAt(ctx, tx, d, uid, name, set, d.Now())
}

// newPresetAt is NewPreset made at now.
func newPresetAt(ctx context.Context, tx ports.Stores, d *kernel.Deps, uid, name string, set *contracts.DeckSettings, now time.Time) error {
	p := contracts.Preset{ID: d.IDs.NewID(), Name: name, Settings: set.PresetOf(), CreatedAt: now, UpdatedAt: now}
	if err := tx.Presets().CreatePreset(ctx, uid, p); err != nil {
		return kernel.Fail(err)
	}
	set.PresetID = p.ID
	return nil
}

// usePreset points set at the user's preset presetID and takes its fields.
func usePreset(ctx context.Context, tx ports.Stores, uid, presetID string, set *contracts.DeckSettings) error {
	if !kernel.PlausibleID(presetID) {
		return presetNotFound(presetID)
	}
	p, err := tx.Presets().GetPreset(ctx, uid, presetID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return presetNotFound(presetID)
	}
	if err != nil {
		return kernel.Fail(err)
	}
	*set = set.WithPreset(p)
	return nil
}

func presetNotFound(id string) error {
	return contracts.Errorf(contracts.KindNotFound, "preset %q not found; use a deck's settings.presetId from get_deck or list_decks, or \"new\"", id)
}

// changesPreset reports whether an update_deck call changes preset fields.
func changesPreset(args contracts.UpdateDeckArgs) bool {
	return args.DesiredRetention != nil || args.MaximumIntervalDays != nil || args.LearningSteps != nil ||
		args.RelearningSteps != nil || args.Weights != nil || args.BuryNew != nil || args.BuryReviews != nil ||
		args.BuryInterday != nil || args.LeechThreshold != nil || args.LeechAction != "" || args.NewMix != "" ||
		args.EasyDays != nil || args.RescheduleOnChange != nil
}

// choosePreset applies update_deck's presetId to a deck as loaded, before
// the fields of the call are applied: another preset's fields replace the
// deck's, "new" leaves the deck without one (storePreset then makes its
// own copy).
func choosePreset(ctx context.Context, tx ports.Stores, uid, presetID string, set *contracts.DeckSettings) error {
	switch presetID {
	case "", set.PresetID:
		return nil
	case contracts.PresetNew:
		set.PresetID = ""
		return nil
	}
	return usePreset(ctx, tx, uid, presetID, set)
}

// storePreset keeps the preset fields after an update: in the preset the
// deck uses (for every deck sharing it) when the call changed them, or in
// a new preset when the deck has none; either at now, the deck's update
// time, so a deck.update record's preset version is the preset's.
func storePreset(ctx context.Context, tx ports.Stores, d *kernel.Deps, uid string, args contracts.UpdateDeckArgs, deck *contracts.Deck, now time.Time) error {
	if deck.Settings.PresetID == "" {
		return newPresetAt(ctx, tx, d, uid, deck.Name, &deck.Settings, now)
	}
	if !changesPreset(args) {
		return nil
	}
	p, err := tx.Presets().GetPreset(ctx, uid, deck.Settings.PresetID)
	if err != nil {
		return kernel.Fail(err)
	}
	p.Settings, p.UpdatedAt = deck.Settings.PresetOf(), now
	return kernel.Fail(tx.Presets().UpdatePreset(ctx, uid, p))
}

// dropUnusedPreset deletes a preset the deck no longer uses when no other
// deck does, and returns it when it did (nil otherwise): the deck.update
// record keeps it, so undo_changes can bring the deck's settings back.
func dropUnusedPreset(ctx context.Context, tx ports.Stores, uid string, was *contracts.Preset, now string) (*contracts.Preset, error) {
	if was == nil || was.ID == now {
		return nil, nil
	}
	gone, err := tx.Presets().DeleteUnusedPreset(ctx, uid, was.ID)
	if err != nil || !gone {
		return nil, kernel.Fail(err)
	}
	return was, nil
}

// leftPreset reads the preset a deck moved off (from was to now), before
// dropUnusedPreset may delete it; nil when the deck kept its preset. One
// read, on a change of preset only.
func leftPreset(ctx context.Context, tx ports.Stores, uid, was, now string) (*contracts.Preset, error) {
	if was == "" || was == now {
		return nil, nil
	}
	p, err := tx.Presets().GetPreset(ctx, uid, was)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	return &p, nil
}
