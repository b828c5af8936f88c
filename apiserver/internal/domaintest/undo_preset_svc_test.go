package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// opCtx is ctx acting under a fresh operation id, returned beside it.
func opCtx(ctx context.Context, op string) (context.Context, string) {
	return contracts.WithOperationID(ctx, op), op
}

// undoOp undoes one operation, failing the test on an error.
func undoOp(t *testing.T, e *env, ctx context.Context, op string, dry bool) contracts.UndoChangesResult {
	t.Helper()
	res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}, DryRun: dry})
	if err != nil {
		t.Fatalf("undo %s: %v", op, err)
	}
	return res
}

// getDeck reads a deck, failing the test on an error.
func getDeck(t *testing.T, e *env, ctx context.Context, id string) contracts.Deck {
	t.Helper()
	d, err := e.svc.Decks.GetDeck(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestUndoPresetSwitch: update_deck moving a deck to another deck's
// preset deletes the preset it left when no other deck used it; undoing
// the move makes that preset again (its id, its settings) and moves the
// deck back, and undoing the undo moves it over again. A move whose old
// preset was deleted by a later change (recorded there, not here) is
// skipped with a reason, not a failed call; undoing that later change
// first brings the preset back, and then the move undoes too.
func TestUndoPresetSwitch(t *testing.T) { eachStore(t, testUndoPresetSwitch) }

func testUndoPresetSwitch(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a, b := e.deck(ctx, "A"), e.deck(ctx, "B")
	pa, pb := a.Settings.PresetID, b.Settings.PresetID
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: a.ID, DesiredRetention: ptr(0.85), LearningSteps: []float64{2, 20}}); err != nil {
		t.Fatal(err)
	}
	presets := func() int {
		t.Helper()
		ps, err := e.svc.Decks.ListPresets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(ps)
	}
	e.clock.Advance(time.Minute)
	octx, op := opCtx(ctx, "op-switch")
	if _, err := e.svc.Decks.UpdateDeck(octx, contracts.UpdateDeckArgs{DeckID: a.ID, PresetID: pb}); err != nil {
		t.Fatal(err)
	}
	if n := presets(); n != 1 {
		t.Fatalf("after the move %d presets, want A's deleted", n)
	}
	e.clock.Advance(time.Minute)
	undo := undoOp(t, e, ctx, op, false)
	if undo.Undone != 1 || undo.Skipped != 0 {
		t.Fatalf("undo of the move: %+v", undo)
	}
	got := getDeck(t, e, ctx, a.ID)
	if s := got.Settings; s.PresetID != pa || s.DesiredRetention != 0.85 || len(s.LearningSteps) != 2 || s.LearningSteps[1] != 20 {
		t.Errorf("A after the undo: %+v; want back on its preset %s at 0.85, steps 2 20", s, pa)
	}
	if n := presets(); n != 2 {
		t.Errorf("after the undo %d presets, want A's back", n)
	}
	if s := getDeck(t, e, ctx, b.ID).Settings; s.PresetID != pb || s.DesiredRetention != 0.9 {
		t.Errorf("B after the undo: %+v", s)
	}
	e.clock.Advance(time.Minute)
	if redo := undoOp(t, e, ctx, undo.OperationID, false); redo.Undone != 1 {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	if s := getDeck(t, e, ctx, a.ID).Settings; s.PresetID != pb || presets() != 1 {
		t.Errorf("A after redoing: %+v, %d presets; want on B's preset, A's deleted again", s, presets())
	}

	// C shares A's preset P; A moves to B's preset (P stays, C uses it),
	// then C moves too (P goes, in C's record).
	e.clock.Advance(time.Minute)
	c := e.deck(ctx, "C")
	d := e.deck(ctx, "D")
	pd := d.Settings.PresetID
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: c.ID, PresetID: pd}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	dctx, dop := opCtx(ctx, "op-d-leaves")
	if _, err := e.svc.Decks.UpdateDeck(dctx, contracts.UpdateDeckArgs{DeckID: d.ID, PresetID: pb}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	cctx, cop := opCtx(ctx, "op-c-leaves")
	if _, err := e.svc.Decks.UpdateDeck(cctx, contracts.UpdateDeckArgs{DeckID: c.ID, PresetID: pb}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	skip := undoOp(t, e, ctx, dop, false)
	if skip.Undone != 0 || skip.Skipped != 1 || !strings.Contains(skip.Items[0].Reason, "no longer exists") {
		t.Fatalf("undo of D's move after its preset went: %+v; want skipped with a reason", skip)
	}
	if back := undoOp(t, e, ctx, cop, false); back.Undone != 1 {
		t.Fatalf("undo of C's move: %+v", back)
	}
	if again := undoOp(t, e, ctx, dop, false); again.Undone != 1 {
		t.Fatalf("undo of D's move once its preset is back: %+v", again)
	}
	if s := getDeck(t, e, ctx, d.ID).Settings; s.PresetID != pd {
		t.Errorf("D after the undo is on %s, want %s", s.PresetID, pd)
	}
}

// TestUndoSharedPresetChange: B shares A's preset; an agent sets A's
// retention (op X); undoing X would put it back (a dry run says so) until
// the person sets the retention through B: then undoing X is skipped
// with a reason and both decks keep the person's value. An optimiser's
// write to the preset (PutWeights, the preset's time only) counts too.
func TestUndoSharedPresetChange(t *testing.T) { eachStore(t, testUndoSharedPresetChange) }

func testUndoSharedPresetChange(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a, b := e.deck(ctx, "A"), e.deck(ctx, "B")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: b.ID, PresetID: a.Settings.PresetID}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	xctx, x := opCtx(ctx, "op-x")
	if _, err := e.svc.Decks.UpdateDeck(xctx, contracts.UpdateDeckArgs{DeckID: a.ID, DesiredRetention: ptr(0.85)}); err != nil {
		t.Fatal(err)
	}
	if dry := undoOp(t, e, ctx, x, true); dry.Undone != 1 {
		t.Fatalf("dry undo of X with nothing changed since: %+v", dry)
	}
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: b.ID, DesiredRetention: ptr(0.8)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	undo := undoOp(t, e, ctx, x, false)
	if undo.Undone != 0 || undo.Skipped != 1 || !strings.Contains(undo.Items[0].Reason, "preset") {
		t.Fatalf("undo of X after the preset changed through B: %+v; want skipped", undo)
	}
	for _, id := range []string{a.ID, b.ID} {
		if r := getDeck(t, e, ctx, id).Settings.DesiredRetention; r != 0.8 {
			t.Errorf("deck %s retention %v after the skipped undo, want the person's 0.8", id, r)
		}
	}
}

// TestUndoTwiceInOneOperation, with a clock that moves on 1 ms at every
// read (as a real one does): an operation that renamed a deck twice, set
// its preset's retention twice and changed the account's settings twice
// undoes whole, every record undone and the first values back; the undo
// takes an item it put back at the version it stored, not a later read
// of the clock.
func TestUndoTwiceInOneOperation(t *testing.T) { eachStore(t, testUndoTwiceInOneOperation) }

func testUndoTwiceInOneOperation(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a := e.deck(ctx, "A")
	e.clock.Advance(time.Minute)
	e.clock.Tick(time.Millisecond)
	octx, op := opCtx(ctx, "op-twice")
	for _, u := range []contracts.UpdateDeckArgs{
		{DeckID: a.ID, Name: ptr("B"), DesiredRetention: ptr(0.85)},
		{DeckID: a.ID, Name: ptr("C"), DesiredRetention: ptr(0.8)},
	} {
		if _, err := e.svc.Decks.UpdateDeck(octx, u); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{7, 8} {
		if _, err := e.svc.Settings.UpdateSettings(octx, contracts.UpdateSettingsArgs{NewCardsPerDay: ptr(n)}); err != nil {
			t.Fatal(err)
		}
	}
	undo := undoOp(t, e, ctx, op, false)
	if undo.Undone != 4 || undo.Skipped != 0 {
		t.Fatalf("undo of the operation: %+v; want 4 undone", undo)
	}
	if got := getDeck(t, e, ctx, a.ID); got.Name != "A" || got.Settings.DesiredRetention != 0.9 {
		t.Errorf("deck after the undo: %q at %v, want A at 0.9", got.Name, got.Settings.DesiredRetention)
	}
	set, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if set.NewCardsPerDay == 7 || set.NewCardsPerDay == 8 {
		t.Errorf("settings after the undo: %d new a day, want the first value back", set.NewCardsPerDay)
	}
}
