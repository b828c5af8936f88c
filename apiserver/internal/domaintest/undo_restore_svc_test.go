package domain_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoRestoreItems: restore_items records what it brought back, and
// undo_changes by its operation id moves a restored deck (with its cards)
// and a restored card back to the trash; undoing the undo restores them
// again; and once the restored card is edited, undoing is skipped for it
// with a reason while the deck still goes back to the trash.
func TestUndoRestoreItems(t *testing.T) { eachStore(t, testUndoRestoreItems) }

func testUndoRestoreItems(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	keep, gone := e.deck(ctx, "Keep"), e.deck(ctx, "Gone")
	cards := ids(e.add(ctx, keep.ID, manyCards("keep", 3)...))
	e.add(ctx, gone.ID, manyCards("gone", 2)...)
	if _, err := e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: cards[:1]}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: gone.ID}); err != nil {
		t.Fatal(err)
	}
	trash := func() string {
		t.Helper()
		page, err := e.svc.Trash.ListTrash(ctx, contracts.ListTrashArgs{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, it := range page.Items {
			s = append(s, it.Kind+":"+it.ID)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	trashed := trash()
	undo := func(op string) contracts.UndoChangesResult {
		t.Helper()
		res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	rctx := contracts.WithOperationID(ctx, "op-restore")
	res, err := e.svc.Trash.RestoreItems(rctx, contracts.RestoreItemsArgs{DeckIDs: []string{gone.ID}, CardIDs: cards[:1]})
	if err != nil || res.Counts[string(contracts.OutcomeRestored)] != 2 {
		t.Fatalf("restore_items: %+v, %v", res, err)
	}
	if got := trash(); got != "" {
		t.Fatalf("after restoring, the trash holds %q", got)
	}
	u := undo("op-restore")
	if u.Undone != 2 || u.Skipped != 0 {
		t.Fatalf("undo of the restore: %+v", u)
	}
	if got := trash(); got != trashed {
		t.Errorf("after undoing the restore the trash holds %q, want %q", got, trashed)
	}
	redo := undo(u.OperationID)
	if redo.Undone != 2 {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	if got := trash(); got != "" {
		t.Errorf("after redoing the restore, the trash holds %q", got)
	}
	if _, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: cards[0], Back: ptr("edited after")}}}); err != nil {
		t.Fatal(err)
	}
	stale := undo(redo.OperationID)
	if stale.Undone != 1 || stale.Skipped != 1 {
		t.Fatalf("undo after an edit: %+v", stale)
	}
	for _, it := range stale.Items {
		if (it.ID == cards[0]) != (it.Status == contracts.UndoSkipped) || (it.ID == cards[0] && !strings.Contains(it.Reason, "changed after")) {
			t.Errorf("undo item %+v", it)
		}
	}
	if c, err := e.svc.Cards.GetCard(ctx, cards[0]); err != nil || c.Back != "edited after" {
		t.Errorf("the edited card: %+v, %v; want it kept, not trashed", c, err)
	}
}
