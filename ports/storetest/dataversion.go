package storetest

import (
	"errors"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testDataVersion: every committed write of an account's cards, decks,
// presets, review logs or settings changes its data version (which a
// cache of plans and stats trusts); reads, rolled-back writes and other
// accounts' writes do not; deleting the account deletes it.
func testDataVersion(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	st := f.s.Settings()
	version := func(u string) int64 {
		t.Helper()
		v, err := st.DataVersion(f.ctx, u)
		must(t, err)
		return v
	}
	if v := version(a); v != 0 {
		t.Errorf("a new account's data version = %d, want 0", v)
	}
	step := func(what string, write func()) {
		t.Helper()
		before, other := version(a), version(b)
		write()
		if after := version(a); after == before {
			t.Errorf("%s left the data version at %d", what, after)
		}
		if v := version(b); v != other {
			t.Errorf("%s changed another account's data version %d → %d", what, other, v)
		}
	}
	var d contracts.Deck
	step("creating a deck", func() { d = f.deck(a, "Versioned") })
	f.deck(b, "Other")
	var c ports.CardRow
	step("adding a card", func() { c = f.insert(a, f.card(d.ID, "front", "back"))[0] })
	step("a new schedule", func() {
		s := c.State
		s.Phase, s.Reps = contracts.PhaseLearning, 1
		must(t, f.s.Cards().UpdateState(f.ctx, a, c.ID, 1, s, f.now.Add(day)))
	})
	r := f.reviewLog(a, c, "", contracts.RatingGood, f.now, 0)
	step("a review log", func() { must(t, f.s.Reviews().AppendReview(f.ctx, r)) })
	step("undoing the review log", func() { must(t, f.s.Reviews().DeleteReview(f.ctx, a, r.ID)) })
	step("changing the deck's settings", func() {
		d.Settings.NewCardsPerDay = 3
		must(t, f.s.Decks().UpdateDeck(f.ctx, a, d))
	})
	p := contracts.Preset{ID: f.id("pre"), Name: "Versioned preset", Settings: contracts.DefaultDeckSettings().PresetOf(), CreatedAt: f.now, UpdatedAt: f.now}
	step("creating a preset", func() { must(t, f.s.Presets().CreatePreset(f.ctx, a, p)) })
	step("changing a preset", func() {
		p.Settings.DesiredRetention = 0.85
		must(t, f.s.Presets().UpdatePreset(f.ctx, a, p))
	})
	step("changing the settings", func() {
		must(t, st.PutSettings(f.ctx, a, contracts.AccountSettings{Timezone: "Asia/Tokyo", UpdatedAt: f.now}))
	})
	step("trashing the card", func() {
		_, err := f.s.Cards().TrashCards(f.ctx, a, []string{c.ID}, f.now)
		must(t, err)
	})

	// Reads leave it; a rolled-back write leaves it.
	v := version(a)
	_, _, err := st.GetSettings(f.ctx, a)
	must(t, err)
	_, err = f.s.Cards().CountPhases(f.ctx, a, d.ID)
	must(t, err)
	_ = f.s.InTx(f.ctx, func(tx ports.Stores) error {
		must(t, tx.Cards().InsertCards(f.ctx, a, []ports.CardRow{f.card(d.ID, "rolled", "back")}))
		return errors.New("roll back")
	})
	if got := version(a); got != v {
		t.Errorf("reads and a rolled-back write moved the data version %d → %d", v, got)
	}
	// A transaction of many writes changes it (at least once).
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		return tx.Cards().InsertCards(f.ctx, a, []ports.CardRow{f.card(d.ID, "x1", "y"), f.card(d.ID, "x2", "y")})
	}))
	if got := version(a); got == v {
		t.Error("a committed transaction left the data version")
	}

	must(t, f.s.Users().DeleteUser(f.ctx, a, f.id("del"), f.now))
	if got := version(a); got != 0 {
		t.Errorf("a deleted account's data version = %d, want 0 (its row gone)", got)
	}
}
