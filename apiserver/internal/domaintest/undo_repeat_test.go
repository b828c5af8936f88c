package domain_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoSinceRepeated: undoing everything an API key did since a time
// takes back the agent's edit; the same call again (a retry after a
// client timeout) finds nothing to undo, where it used to take back the
// first undo's own records and so redo the edit. An undo by the first
// undo's operation id still redoes.
func TestUndoSinceRepeated(t *testing.T) { eachStore(t, testUndoSinceRepeated) }

func testUndoSinceRepeated(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	agent := as(p.UserID, contracts.CredentialAPIKey)
	d := e.deck(ctx, "Agent")
	id := e.add(ctx, d.ID, card("front", "orig")).Items[0].ID
	back := func() string {
		t.Helper()
		rows, err := e.store.Cards().GetCards(ctx, p.UserID, []string{id})
		if err != nil || len(rows) != 1 {
			t.Fatalf("card: %v %v", rows, err)
		}
		return rows[0].Back
	}
	e.clock.Advance(time.Minute)
	since, err := contracts.ParseDateOrTime(e.clock.Now().Format(time.RFC3339Nano))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Cards.UpdateCards(contracts.WithOperationID(agent, "op-agent"),
		contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: id, Back: ptr("agent")}}}); err != nil {
		t.Fatal(err)
	}
	for i, op := range []string{"op-undo-1", "op-undo-2"} {
		e.clock.Advance(time.Minute)
		res, err := e.svc.Undo.UndoChanges(contracts.WithOperationID(agent, op), contracts.UndoChangesArgs{Since: &since})
		if err != nil {
			t.Fatal(err)
		}
		if got := back(); got != "orig" {
			t.Fatalf("undo %d since the mark: back %q, want orig (%+v)", i+1, got, res)
		}
		if want := 1 - i; res.Undone != want {
			t.Errorf("undo %d since the mark: %d undone, want %d (%+v)", i+1, res.Undone, want, res)
		}
	}
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Undo.UndoChanges(agent, contracts.UndoChangesArgs{OperationIDs: []string{"op-undo-1"}}); err != nil {
		t.Fatal(err)
	}
	if got := back(); got != "agent" {
		t.Fatalf("undo of the first undo by its operation id: back %q, want agent (a redo)", got)
	}
}

// TestUndoDryRunPastOneChunk: an undo's dry run of more than one
// transaction's worth of records (100) reports what the real call does.
// op1 edits card X; op2 edits 100 other cards then X: undoing both takes
// back all 102 edits. The dry run rolled each chunk back alone while it
// kept the versions it had restored, so its second chunk saw X at op2's
// version and skipped op1's edit (101 undone, 1 skipped).
func TestUndoDryRunPastOneChunk(t *testing.T) { eachStore(t, testUndoDryRunPastOneChunk) }

func testUndoDryRunPastOneChunk(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Chunks")
	cards := make([]contracts.NewCard, 101)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("front %d", i), "orig")
	}
	var ids []string
	for _, it := range e.add(ctx, d.ID, cards...).Items {
		ids = append(ids, it.ID)
	}
	x := ids[0]
	if _, err := e.svc.Cards.UpdateCards(contracts.WithOperationID(ctx, "op-1"),
		contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: x, Back: ptr("op1")}}}); err != nil {
		t.Fatal(err)
	}
	var patches []contracts.CardPatch
	for _, id := range append(ids[1:], x) {
		patches = append(patches, contracts.CardPatch{ID: id, Back: ptr("op2")})
	}
	if _, err := e.svc.Cards.UpdateCards(contracts.WithOperationID(ctx, "op-2"), contracts.UpdateCardsArgs{Updates: patches}); err != nil {
		t.Fatal(err)
	}
	args := contracts.UndoChangesArgs{OperationIDs: []string{"op-1", "op-2"}, DryRun: true}
	dry, err := e.svc.Undo.UndoChanges(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	args.DryRun = false
	real, err := e.svc.Undo.UndoChanges(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if real.Undone != 102 || real.Skipped != 0 {
		t.Errorf("real undo: %d undone, %d skipped; want 102, 0", real.Undone, real.Skipped)
	}
	if dry.Undone != real.Undone || dry.Skipped != real.Skipped || !reflect.DeepEqual(dry.Items, real.Items) {
		t.Errorf("dry run %d undone, %d skipped; real call %d, %d", dry.Undone, dry.Skipped, real.Undone, real.Skipped)
	}
}

// TestUndoMoveOutOfFiltered: update_cards refuses a filtered deck as the
// deck to move a card to (Anki moves no card into one), and undoing a
// move of a card a filtered deck held puts it back at its home, never in
// the filtered deck without a home (which emptying or deleting the
// filtered deck would then trash).
func TestUndoMoveOutOfFiltered(t *testing.T) { eachStore(t, testUndoMoveOutOfFiltered) }

func testUndoMoveOutOfFiltered(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	home, other := e.deck(ctx, "Home"), e.deck(ctx, "Other")
	id := e.add(ctx, home.ID, card("Haus", "house")).Items[0].ID
	f, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "F", Search: ptr("deck:Home")})
	if err != nil || f.Gathered != 1 {
		t.Fatalf("filtered deck: %+v, %v", f, err)
	}
	where := func() (deck, homeDeck string) {
		t.Helper()
		rows, err := e.store.Cards().GetCards(ctx, p.UserID, []string{id})
		if err != nil || len(rows) != 1 {
			t.Fatalf("card: %v %v", rows, err)
		}
		return rows[0].DeckID, rows[0].HomeDeckID
	}
	if d, h := where(); d != f.DeckID || h != home.ID {
		t.Fatalf("gathered card: deck %s home %s", d, h)
	}
	// Moving a card into a filtered deck is refused.
	plain := e.add(ctx, other.ID, card("Baum", "tree")).Items[0].ID
	res, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: plain, DeckID: ptr(f.DeckID)}}})
	if err != nil || res.Items[0].Status != contracts.OutcomeInvalid || !strings.Contains(res.Items[0].Reason, "filtered deck") {
		t.Fatalf("move into the filtered deck: %+v, %v", res, err)
	}
	// Moving the gathered card to another deck, then undoing the move.
	if _, err := e.svc.Cards.UpdateCards(contracts.WithOperationID(ctx, "op-move"),
		contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: id, DeckID: ptr(other.ID)}}}); err != nil {
		t.Fatal(err)
	}
	if d, h := where(); d != other.ID || h != "" {
		t.Fatalf("moved card: deck %s home %q", d, h)
	}
	u, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-move"}})
	if err != nil || u.Undone != 1 {
		t.Fatalf("undo of the move: %+v, %v", u, err)
	}
	if d, h := where(); d != home.ID || h != "" {
		t.Fatalf("after the undo of the move: deck %s home %q, want %s at home", d, h, home.ID)
	}
	if _, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: f.DeckID}); err != nil {
		t.Fatal(err)
	}
	if d, _ := where(); d != home.ID {
		t.Fatalf("after emptying the filtered deck: deck %s, want %s", d, home.ID)
	}
}
