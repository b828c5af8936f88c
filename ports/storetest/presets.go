package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// testPresets checks presets and the decks that use them: reads fill the
// preset's fields into a deck's settings, a preset change shows in every
// deck sharing it, another user's preset is not found, and only an unused
// preset is deleted.
func testPresets(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	ps := f.s.Presets()
	p := contracts.Preset{ID: f.id("pst"), Name: "Languages", Settings: contracts.PresetSettings{
		DesiredRetention: 0.85, MaximumIntervalDays: 400, LearningSteps: []float64{2, 15}, RelearningSteps: []float64{5},
		Weights: append([]float64{}, contracts.DefaultWeights...),
	}, CreatedAt: f.now, UpdatedAt: f.now}
	must(t, ps.CreatePreset(f.ctx, a, p))
	wantKind(t, ps.CreatePreset(f.ctx, a, p), contracts.KindConflict, "CreatePreset with a taken id")
	wantKind(t, ps.CreatePreset(f.ctx, "usr-missing", contracts.Preset{ID: f.id("pst"), Name: "x", CreatedAt: f.now, UpdatedAt: f.now}),
		contracts.KindNotFound, "CreatePreset for an unknown user")

	// Two decks share the preset; their own fields stay their own.
	mk := func(user, name string, newPerDay int, presetID string) contracts.Deck {
		set := contracts.DefaultDeckSettings()
		set.NewCardsPerDay, set.PresetID, set.ReviewOrder = newPerDay, presetID, contracts.ReviewOrderRandom
		set.DesiredRetention = 0.95 // the preset's value wins on reads
		d := contracts.Deck{ID: f.id("dck"), Name: name, Settings: set, CreatedAt: f.now, UpdatedAt: f.now}
		must(t, f.s.Decks().CreateDeck(f.ctx, user, d))
		return d
	}
	d1, d2 := mk(a, "Spanish", 7, p.ID), mk(a, "French", 9, p.ID)
	for _, d := range []contracts.Deck{d1, d2} {
		got, err := f.s.Decks().DeckWithoutCounts(f.ctx, a, d.ID)
		must(t, err)
		s := got.Settings
		if s.PresetID != p.ID || s.DesiredRetention != 0.85 || s.MaximumIntervalDays != 400 || !slices.Equal(s.LearningSteps, []float64{2, 15}) ||
			!slices.Equal(s.RelearningSteps, []float64{5}) || len(s.Weights) != 21 || s.NewCardsPerDay != d.Settings.NewCardsPerDay ||
			s.ReviewOrder != contracts.ReviewOrderRandom {
			t.Errorf("deck %s settings = %+v; want the preset's fields and its own limits", d.Name, s)
		}
	}
	got, err := ps.GetPreset(f.ctx, a, p.ID)
	must(t, err)
	if got.Name != "Languages" || got.Decks != 2 || got.Settings.DesiredRetention != 0.85 || !got.CreatedAt.Equal(f.now) {
		t.Errorf("GetPreset = %+v; want the preset used by 2 decks", got)
	}

	// A change to the preset shows in both decks (GetDeck and ListDecks).
	got.Settings.DesiredRetention, got.Settings.LearningSteps, got.UpdatedAt = 0.8, []float64{1}, f.now.Add(time.Hour)
	must(t, ps.UpdatePreset(f.ctx, a, got))
	full, err := f.s.Decks().GetDeck(f.ctx, a, d2.ID, f.now)
	must(t, err)
	if full.Settings.DesiredRetention != 0.8 || !slices.Equal(full.Settings.LearningSteps, []float64{1}) {
		t.Errorf("GetDeck after the preset changed = %+v", full.Settings)
	}
	list, err := f.s.Decks().ListDecks(f.ctx, a, "", 10, f.now)
	must(t, err)
	for _, d := range list {
		if d.Settings.DesiredRetention != 0.8 || d.Settings.PresetID != p.ID {
			t.Errorf("ListDecks deck %s settings = %+v; want the changed preset", d.Name, d.Settings)
		}
	}

	// Another user sees none of it and cannot use it.
	wantKind(t, func() error { _, err := ps.GetPreset(f.ctx, b, p.ID); return err }(), contracts.KindNotFound, "GetPreset of another user's preset")
	wantKind(t, ps.UpdatePreset(f.ctx, b, got), contracts.KindNotFound, "UpdatePreset of another user's preset")
	if del, err := ps.DeleteUnusedPreset(f.ctx, b, p.ID); err != nil || del {
		t.Errorf("DeleteUnusedPreset of another user's preset = %v, %v; want false, nil", del, err)
	}
	other, err := ps.ListPresets(f.ctx, b)
	must(t, err)
	if len(other) != 0 {
		t.Errorf("ListPresets of another user = %+v; want none", other)
	}
	bs := contracts.Deck{ID: f.id("dck"), Name: "Hijack", Settings: contracts.DeckSettings{PresetID: p.ID}, CreatedAt: f.now, UpdatedAt: f.now}
	wantKind(t, f.s.Decks().CreateDeck(f.ctx, b, bs), contracts.KindNotFound, "CreateDeck with another user's preset")
	bd := f.deck(b, "Own")
	bd.Settings.PresetID = p.ID
	wantKind(t, f.s.Decks().UpdateDeck(f.ctx, b, bd), contracts.KindNotFound, "UpdateDeck to another user's preset")

	// Moving one deck to its own preset leaves the shared one in use; a
	// preset is deleted only once no deck uses it.
	own := contracts.Preset{ID: f.id("pst"), Name: "French own", Settings: contracts.PresetSettings{DesiredRetention: 0.9, MaximumIntervalDays: 36500},
		CreatedAt: f.now, UpdatedAt: f.now}
	must(t, ps.CreatePreset(f.ctx, a, own))
	moved, err := f.s.Decks().DeckWithoutCounts(f.ctx, a, d2.ID)
	must(t, err)
	moved.Settings.PresetID = own.ID
	must(t, f.s.Decks().UpdateDeck(f.ctx, a, moved))
	after, err := f.s.Decks().DeckWithoutCounts(f.ctx, a, d2.ID)
	must(t, err)
	if after.Settings.PresetID != own.ID || after.Settings.DesiredRetention != 0.9 || after.Settings.NewCardsPerDay != 9 || after.Settings.LearningSteps != nil {
		t.Errorf("deck after moving to its own preset = %+v", after.Settings)
	}
	if del, err := ps.DeleteUnusedPreset(f.ctx, a, p.ID); err != nil || del {
		t.Errorf("DeleteUnusedPreset of a preset in use = %v, %v; want false, nil", del, err)
	}
	// Deleting the last deck of a preset deletes the preset.
	must(t, func() error { _, err := f.s.Decks().TrashDeck(f.ctx, a, d1.ID, f.now); return err }())
	spare := contracts.Preset{ID: f.id("pst"), Name: "Spare", CreatedAt: f.now, UpdatedAt: f.now}
	must(t, ps.CreatePreset(f.ctx, a, spare))
	if del, err := ps.DeleteUnusedPreset(f.ctx, a, spare.ID); err != nil || !del {
		t.Errorf("DeleteUnusedPreset of an unused preset = %v, %v; want true, nil", del, err)
	}
	left, err := ps.ListPresets(f.ctx, a)
	must(t, err)
	if len(left) != 1 || left[0].ID != own.ID || left[0].Decks != 1 {
		t.Errorf("ListPresets after the delete = %+v; want only %s used by 1 deck", left, own.ID)
	}
	wantKind(t, func() error { _, err := ps.GetPreset(f.ctx, a, p.ID); return err }(), contracts.KindNotFound, "GetPreset of the preset of a deleted deck")
}
