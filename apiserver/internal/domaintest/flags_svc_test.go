package domain_test

import (
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestCardFlags: a card's flag (Anki's seven colours) is set and cleared
// through update_cards' patch, refused out of range, found by flag:N or
// flag:colour (flag:0 the unflagged), and undone by undo_changes like the
// patch's other fields (issue 31 §12).
func TestCardFlags(t *testing.T) { eachStore(t, testCardFlags) }

func testCardFlags(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Flags"})
	if err != nil {
		t.Fatal(err)
	}
	c := ids(e.add(ctx, d.ID, card("red one", "a"), card("green one", "b"), card("plain", "c")))
	flag := func(id string, n int) contracts.ItemOutcome {
		t.Helper()
		res, err := e.svc.Cards.UpdateCards(contracts.WithOperationID(ctx, "op-flag-"+id), contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: id, Flag: &n}}})
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("flag %s: %+v, %v", id, res, err)
		}
		return res.Items[0]
	}
	search := func(q string) []string {
		t.Helper()
		page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: q, DeckID: d.ID})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var out []string
		for _, c := range page.Items {
			out = append(out, c.ID)
		}
		return out
	}
	if o := flag(c[0], 1); o.Status != contracts.OutcomeUpdated {
		t.Fatalf("flag red: %+v", o)
	}
	if o := flag(c[1], 3); o.Status != contracts.OutcomeUpdated {
		t.Fatalf("flag green: %+v", o)
	}
	if got, _ := e.svc.Cards.GetCard(ctx, c[0]); got.Flag != 1 {
		t.Errorf("the red card reads back with flag %d", got.Flag)
	}
	for q, want := range map[string][]string{
		"flag:1": {c[0]}, "flag:red": {c[0]}, "flag:3": {c[1]}, "flag:GREEN one": {c[1]}, "flag:0": {c[2]}, "flag:7": nil,
	} {
		if got := search(q); !sameSet(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
	for _, bad := range []string{"flag:8", "flag:", "flag:mauve"} {
		_, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: bad})
		wantKind(t, err, contracts.KindInvalid)
	}
	if o := flag(c[2], 8); o.Status != contracts.OutcomeInvalid {
		t.Errorf("flag 8: %+v, want invalid", o)
	}
	// Undo puts the previous flag back; its undo sets it again.
	u, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-flag-" + c[0]}})
	if err != nil || u.Undone != 1 {
		t.Fatalf("undo the red flag: %+v, %v", u, err)
	}
	if got, _ := e.svc.Cards.GetCard(ctx, c[0]); got.Flag != 0 {
		t.Errorf("after the undo the card has flag %d, want none", got.Flag)
	}
	if r, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{u.OperationID}}); err != nil || r.Undone != 1 {
		t.Fatalf("redo the red flag: %+v, %v", r, err)
	}
	if got, _ := e.svc.Cards.GetCard(ctx, c[0]); got.Flag != 1 {
		t.Errorf("after the redo the card has flag %d, want red", got.Flag)
	}
	if o := flag(c[0], 0); o.Status != contracts.OutcomeUpdated || !sameSet(search("flag:0"), []string{c[0], c[2]}) {
		t.Errorf("clearing the flag: %+v; flag:0 = %v", o, search("flag:0"))
	}
}

// sameSet says whether a and b hold the same ids, in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		if seen[x]--; seen[x] < 0 {
			return false
		}
	}
	return true
}
