package domain_test

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoFilteredRebuild: a filtered deck's rebuild records the cards
// it sent home (card.return), the search it replaced (filtered.update)
// and the cards it gathered, and undo_changes by its operation puts the
// previous search and the previous cards back; undoing the undo rebuilds
// again; an edit since makes the card's undo skipped. Undoing an empty
// gathers its cards back.
func TestUndoFilteredRebuild(t *testing.T) { eachStore(t, testUndoFilteredRebuild) }

func testUndoFilteredRebuild(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	home := e.deck(ctx, "Home")
	cs := ids(e.add(ctx, home.ID, card("alpha 1", "x", "a"), card("alpha 2", "x", "a"), card("beta 1", "x", "b"), card("beta 2", "x", "b")))
	alphas, betas := cs[:2], cs[2:]
	f, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "F", Search: ptr("tag:a")})
	if err != nil || f.Gathered != 2 {
		t.Fatalf("create: %+v, %v", f, err)
	}
	holds := func(when, search string, in []string) {
		t.Helper()
		got, err := e.svc.Filtered.Filtered(ctx, f.DeckID)
		if err != nil || got.Search != search {
			t.Errorf("%s: filtered deck %+v, %v; want search %q", when, got, err, search)
		}
		for _, id := range cs {
			c := e.card1(ctx, id)
			if slices.Contains(in, id) != (c.DeckID == f.DeckID && c.HomeDeckID == home.ID) || (!slices.Contains(in, id) && (c.DeckID != home.ID || c.HomeDeckID != "")) {
				t.Errorf("%s: card %s in %s (home %q), want held: %v", when, id, c.DeckID, c.HomeDeckID, slices.Contains(in, id))
			}
		}
	}
	undo := func(op string) contracts.UndoChangesResult {
		t.Helper()
		e.clock.Advance(time.Minute)
		res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	holds("after create", "tag:a", alphas)

	e.clock.Advance(time.Minute)
	g, err := e.svc.Filtered.FilteredDeck(contracts.WithOperationID(ctx, "op-rebuild"), contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: f.DeckID, Search: ptr("tag:b")})
	if err != nil || g.Returned != 2 || g.Gathered != 2 {
		t.Fatalf("rebuild: %+v, %v", g, err)
	}
	holds("after the rebuild", "tag:b", betas)
	res := undo("op-rebuild")
	kinds := map[contracts.ChangeKind]int{}
	for _, it := range res.Items {
		kinds[it.Kind]++
	}
	if res.Undone != 5 || res.Skipped != 0 || kinds[contracts.ChangeCardReturn] != 2 || kinds[contracts.ChangeFilteredUpdate] != 1 || kinds[contracts.ChangeCardUpdate] != 2 {
		t.Fatalf("undo of the rebuild: %+v", res)
	}
	holds("after undoing the rebuild", "tag:a", alphas)

	redo := undo(res.OperationID)
	if redo.Undone != 5 {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	holds("after redoing the rebuild", "tag:b", betas)

	// An edit since: that card's undo is skipped, the rest is undone.
	if _, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: betas[0], Back: ptr("y")}}}); err != nil {
		t.Fatal(err)
	}
	again := undo(redo.OperationID)
	if again.Skipped != 1 || again.Undone != 4 {
		t.Fatalf("undo of the redo after an edit: %+v, want one skipped", again)
	}
	for _, it := range again.Items {
		if it.Status == contracts.UndoSkipped && (it.ID != betas[0] || it.Reason == "") {
			t.Errorf("skipped %+v, want only %s with a reason", it, betas[0])
		}
	}
	holds("after the partial undo", "tag:a", append([]string{betas[0]}, alphas...))

	// Emptying, undone, gathers the cards back.
	if g, err := e.svc.Filtered.FilteredDeck(contracts.WithOperationID(ctx, "op-empty"), contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: f.DeckID}); err != nil || g.Returned != 3 {
		t.Fatalf("empty: %+v, %v", g, err)
	}
	holds("after emptying", "tag:a", nil)
	if res := undo("op-empty"); res.Undone != 3 {
		t.Fatalf("undo of the empty: %+v", res)
	}
	holds("after undoing the empty", "tag:a", append([]string{betas[0]}, alphas...))
}
