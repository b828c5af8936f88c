package domain_test

import (
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// Decks share a preset: a change through one deck shows in the other;
// "new" gives a deck its own copy; an unused preset goes away; weights
// are validated; another user's preset is not found.
func TestSharedPresets(t *testing.T) { eachStore(t, testSharedPresets) }

func testSharedPresets(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	mk := func(name string) contracts.Deck {
		d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: name, DesiredRetention: ptr(0.88)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Settings.PresetID == "" || d.Settings.DesiredRetention != 0.88 {
			t.Fatalf("new deck %s settings = %+v; want a preset of its own with the retention given", name, d.Settings)
		}
		return d
	}
	es, fr := mk("Spanish"), mk("French")
	if es.Settings.PresetID == fr.Settings.PresetID {
		t.Fatal("two new decks share a preset")
	}
	// French joins Spanish's preset; French's own preset is gone.
	upd, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: fr.ID, PresetID: es.Settings.PresetID, NewCardsPerDay: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Settings.PresetID != es.Settings.PresetID || upd.Settings.NewCardsPerDay != 3 {
		t.Errorf("French after joining = %+v", upd.Settings)
	}
	ps, err := e.svc.Decks.ListPresets(ctx)
	if err != nil || len(ps) != 1 || ps[0].Decks != 2 || len(ps[0].Settings.Weights) != 21 {
		t.Fatalf("presets = %+v, %v; want one shared by 2 decks", ps, err)
	}
	// A change through French changes Spanish.
	w := slices.Clone(contracts.DefaultWeights)
	w[20] = 0.5
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: fr.ID, DesiredRetention: ptr(0.8), Weights: w,
		LearningSteps: []float64{5}, MaximumIntervalDays: ptr(200)}); err != nil {
		t.Fatal(err)
	}
	got, err := e.svc.Decks.GetDeck(ctx, es.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Settings; s.DesiredRetention != 0.8 || s.Weights[20] != 0.5 || !slices.Equal(s.LearningSteps, []float64{5}) ||
		s.MaximumIntervalDays != 200 || s.NewCardsPerDay != contracts.DefaultNewCardsPerDay || !slices.Equal(s.RelearningSteps, contracts.DefaultRelearningSteps) {
		t.Errorf("Spanish after French changed the shared preset = %+v", s)
	}
	// "new" with a field: French gets its own copy, changed; Spanish keeps the shared values.
	own, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: fr.ID, PresetID: contracts.PresetNew, DesiredRetention: ptr(0.95)})
	if err != nil {
		t.Fatal(err)
	}
	if own.Settings.PresetID == es.Settings.PresetID || own.Settings.DesiredRetention != 0.95 || own.Settings.Weights[20] != 0.5 || own.Settings.MaximumIntervalDays != 200 {
		t.Errorf("French with its own copy = %+v", own.Settings)
	}
	if got, _ := e.svc.Decks.GetDeck(ctx, es.ID); got.Settings.DesiredRetention != 0.8 {
		t.Errorf("Spanish changed with French's own copy: %+v", got.Settings)
	}
	// Joining a preset and changing a field at once changes that preset.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: fr.ID, PresetID: es.Settings.PresetID, MaximumIntervalDays: ptr(100)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.Decks.GetDeck(ctx, es.ID); got.Settings.MaximumIntervalDays != 100 || got.Settings.DesiredRetention != 0.8 {
		t.Errorf("Spanish after French joined with a change = %+v", got.Settings)
	}
	if ps, _ := e.svc.Decks.ListPresets(ctx); len(ps) != 1 {
		t.Errorf("presets after French left its copy = %+v; want the unused copy deleted", ps)
	}
	// Bad weights, an unknown preset and another user's preset are refused, nothing changes.
	bad := slices.Clone(contracts.DefaultWeights)
	bad[4] = 20
	for _, args := range []contracts.UpdateDeckArgs{
		{DeckID: es.ID, Weights: bad},
		{DeckID: es.ID, Weights: contracts.DefaultWeights[:20]},
		{DeckID: es.ID, PresetID: "pst-missing"},
	} {
		if _, err := e.svc.Decks.UpdateDeck(ctx, args); err == nil {
			t.Errorf("UpdateDeck(%+v) accepted", args)
		}
	}
	bob := e.user("bob@example.com")
	bd, err := e.svc.Decks.CreateDeck(bob, contracts.CreateDeckArgs{Name: "Bob's"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Decks.UpdateDeck(bob, contracts.UpdateDeckArgs{DeckID: bd.ID, PresetID: es.Settings.PresetID})
	if !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("joining another user's preset: %v; want not found", err)
	}
	// Deleting both decks deletes the preset.
	for _, id := range []string{es.ID, fr.ID} {
		if _, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if ps, _ := e.svc.Decks.ListPresets(ctx); len(ps) != 0 {
		t.Errorf("presets after deleting every deck = %+v", ps)
	}
}
