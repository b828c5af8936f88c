package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoBury: bury_cards and unbury record each card's previous burial
// (card.bury) under their operation, and undo_changes by it puts the
// burial back; undoing the undo buries again; once the burial changed
// since (unbury), undoing is skipped and changes nothing; undoing the
// unbury buries the cards again until the next day.
func TestUndoBury(t *testing.T) { eachStore(t, testUndoBury) }

func testUndoBury(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Bury")
	cs := ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2"), card("c", "3")))
	burial := func(id string) *time.Time { return e.card1(ctx, id).BuriedUntil }
	buried := func(when string, want bool) {
		t.Helper()
		for _, id := range cs[:2] {
			if b := burial(id); (b != nil && b.After(e.clock.Now())) != want {
				t.Errorf("%s: card %s buried until %v, want buried %v", when, id, b, want)
			}
		}
		if b := burial(cs[2]); b != nil {
			t.Errorf("%s: card %s, never buried, is buried until %v", when, cs[2], b)
		}
	}
	undo := func(op string) contracts.UndoChangesResult {
		t.Helper()
		e.clock.Advance(time.Minute)
		res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			if it.Kind != contracts.ChangeCardBury {
				t.Errorf("undo of %s: item %+v, want card.bury", op, it)
			}
		}
		return res
	}

	if _, err := e.svc.Study.BuryCards(contracts.WithOperationID(ctx, "op-bury"), contracts.BuryCardsArgs{CardIDs: cs[:2]}); err != nil {
		t.Fatal(err)
	}
	buried("after bury_cards", true)
	until := *burial(cs[0])
	if res := undo("op-bury"); res.Undone != 2 || res.Skipped != 0 {
		t.Fatalf("undo of the burial: %+v", res)
	}
	buried("after undoing the burial", false)
	for _, id := range cs[:2] {
		if b := burial(id); b != nil {
			t.Errorf("card %s buried until %v after the undo, want no burial at all", id, b)
		}
	}
	undone := undo("op-bury")
	if undone.Undone != 0 {
		t.Errorf("undoing the burial twice: %+v", undone)
	}

	// Undoing the undo buries again, until the same time.
	list, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-bury"}, DryRun: true})
	if err != nil || list.Undone != 0 {
		t.Fatalf("dry run of an undone operation: %+v, %v", list, err)
	}
	redoOf := func(t *testing.T) string { // the undo's operation id
		t.Helper()
		recs, err := e.store.Changes().ListChanges(ctx, e.uid(ctx), contracts.ChangeFilter{OperationIDs: []string{"op-bury"}}, "", 10)
		if err != nil || len(recs) != 2 || recs[0].UndoneBy == "" {
			t.Fatalf("records of the burial: %+v, %v", recs, err)
		}
		return recs[0].UndoneBy
	}
	redo := undo(redoOf(t))
	if redo.Undone != 2 || redo.OperationID == "" {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	buried("after redoing", true)
	if b := burial(cs[0]); b == nil || !b.Equal(until) {
		t.Errorf("buried until %v after redoing, want %v", b, until)
	}

	// Unburied since: undoing the redo is skipped, and changes nothing.
	u, err := e.svc.Study.Unbury(contracts.WithOperationID(ctx, "op-unbury"), contracts.UnburyArgs{DeckID: d.ID})
	if err != nil || u.Unburied != 2 {
		t.Fatalf("unbury: %+v, %v", u, err)
	}
	buried("after unbury", false)
	unburiedAt := *burial(cs[0])
	if res := undo(redo.OperationID); res.Undone != 0 || res.Skipped != 2 || res.Items[0].Reason == "" {
		t.Errorf("undo of the redo after an unbury: %+v, want both skipped with a reason", res)
	}
	if b := burial(cs[0]); b == nil || !b.Equal(unburiedAt) {
		t.Errorf("a skipped undo changed the burial: %v, want %v", b, unburiedAt)
	}
	// Undoing the unbury buries them again, until the next day.
	if res := undo("op-unbury"); res.Undone != 2 {
		t.Fatalf("undo of the unbury: %+v", res)
	}
	buried("after undoing the unbury", true)
	if b := burial(cs[1]); b == nil || !b.Equal(until) {
		t.Errorf("buried until %v after undoing the unbury, want %v", b, until)
	}
	// A session leaves them out again.
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 1 || s.Current.CardID != cs[2] {
		t.Errorf("session after undoing the unbury: %d cards, current %+v; want only %s", s.Remaining, s.Current, cs[2])
	}
}

// TestUndoSiblingBurial: a sibling buried as a call serves it (here a
// session's read, under an operation) is recorded under that call's
// operation, and undoing it unburies the card.
func TestUndoSiblingBurial(t *testing.T) { eachStore(t, testUndoSiblingBurial) }

func testUndoSiblingBurial(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "German")
	notes := e.notes(ctx, d.ID, reversed("der Hund", "the dog"))
	fwd, rev := notes[0][0], notes[0][1]
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(1), nil), always(contracts.RatingEasy))
	c, _ := e.svc.Cards.GetCard(ctx, fwd)
	e.clock.Set(c.State.Due.Add(time.Hour))
	a := e.start(ctx, d.ID, ptr(0), nil)
	b := e.start(ctx, d.ID, nil, ptr(0))
	if a.Current == nil || a.Current.CardID != fwd || b.Current == nil || b.Current.CardID != rev {
		t.Fatalf("sessions A %+v, B %+v", a.Current, b.Current)
	}
	e.review(ctx, a.ID, fwd, contracts.RatingGood)
	var sctx context.Context = contracts.WithOperationID(ctx, "op-serve")
	if g, err := e.svc.Study.GetSession(sctx, b.ID); err != nil || !g.Done {
		t.Fatalf("session B after A studied the sibling: %+v, %v", g, err)
	}
	if bu := e.card1(ctx, rev).BuriedUntil; bu == nil || !bu.After(e.clock.Now()) {
		t.Fatalf("sibling not buried: %v", bu)
	}
	e.clock.Advance(time.Minute)
	res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-serve"}})
	if err != nil || res.Undone != 1 || res.Items[0].Kind != contracts.ChangeCardBury || res.Items[0].ID != rev {
		t.Fatalf("undo of the serving call: %+v, %v", res, err)
	}
	if bu := e.card1(ctx, rev).BuriedUntil; bu != nil {
		t.Errorf("sibling still buried until %v after the undo", bu)
	}
}
