package storetest

import (
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testInsertNewCards checks InsertNewCards: it inserts the cards whose
// hash is not in their deck, names the ones it skipped, works inside a
// transaction (which stays usable after a skip) and outside one, and
// inserts nothing into another user's deck.
func testInsertNewCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "New cards")
	old := f.insert(a, f.card(d.ID, "old", "x"))[0]
	dup, fresh1, fresh2 := f.card(d.ID, "old", "x"), f.card(d.ID, "fresh 1", "x"), f.card(d.ID, "fresh 2", "x")
	skipped, err := f.s.Cards().InsertNewCards(f.ctx, a, []ports.CardRow{fresh1, dup, fresh2})
	must(t, err)
	if !slices.Equal(skipped, []int{1}) {
		t.Errorf("InsertNewCards skipped %v, want [1] (the copy of %s)", skipped, old.ID)
	}
	got, err := f.s.Cards().GetCards(f.ctx, a, []string{fresh1.ID, dup.ID, fresh2.ID})
	must(t, err)
	sameSet(t, ids(got), []string{fresh1.ID, fresh2.ID}, "cards InsertNewCards inserted")
	for _, c := range got {
		if c.Version != 1 {
			t.Errorf("card %s inserted with version %d, want 1", c.ID, c.Version)
		}
	}
	if skipped, err := f.s.Cards().InsertNewCards(f.ctx, a, nil); err != nil || skipped != nil {
		t.Errorf("InsertNewCards of nothing = %v, %v", skipped, err)
	}

	// In a transaction a skip leaves it usable; everything commits.
	late := f.card(d.ID, "late", "x")
	err = f.s.InTx(f.ctx, func(tx ports.Stores) error {
		skipped, err := tx.Cards().InsertNewCards(f.ctx, a, []ports.CardRow{f.card(d.ID, "fresh 1", "x"), late})
		if err != nil {
			return err
		}
		if !slices.Equal(skipped, []int{0}) {
			t.Errorf("in a transaction InsertNewCards skipped %v, want [0]", skipped)
		}
		return tx.Cards().InsertCards(f.ctx, a, []ports.CardRow{f.card(d.ID, "after", "x")})
	})
	must(t, err)
	if g := f.get(a, late.ID); g.Front != "late" {
		t.Errorf("the card inserted in the transaction reads back as %+v", g)
	}

	// Another user's deck: not found, nothing inserted.
	stray := f.card(d.ID, "stray", "x")
	_, err = f.s.Cards().InsertNewCards(f.ctx, b, []ports.CardRow{stray})
	wantKind(t, err, contracts.KindNotFound, "InsertNewCards into another user's deck")
	if got, _ := f.s.Cards().GetCards(f.ctx, a, []string{stray.ID}); len(got) != 0 {
		t.Errorf("InsertNewCards into another user's deck inserted %v", ids(got))
	}
}
