package domain_test

import (
	"fmt"
	"reflect"
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
