package domain_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoLastReview: undoing a session's last rating puts the card's
// schedule back exactly, forgets the review (daily counts, the session's
// list), shows the card again, removes the learning step the rating
// re-queued, and refuses when the card changed since or there is nothing
// to undo.
func TestUndoLastReview(t *testing.T) { eachStore(t, testUndoLastReview) }

func testUndoLastReview(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Undo")
	e.add(ctx, d.ID, card("alpha", "1"), card("beta", "2"), card("gamma", "3"))
	s := e.start(ctx, d.ID, nil, nil)
	if s.Current == nil || s.Remaining != 3 {
		t.Fatalf("session %+v, want three new cards", s)
	}
	_, err := e.svc.Study.UndoLastReview(ctx, s.ID)
	wantKind(t, err, contracts.KindConflict) // nothing rated yet

	first := *s.Current
	before, err := e.svc.Cards.GetCard(ctx, first.CardID)
	if err != nil {
		t.Fatal(err)
	}
	snapBefore, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * time.Second)
	res := e.review(ctx, s.ID, first.CardID, contracts.RatingAgain) // new → learning, re-queued
	if res.Remaining != 3 || res.Reviewed != 1 {
		t.Fatalf("after again: %+v, want 1 reviewed and the card re-queued (3 remaining)", res)
	}
	studied, err := e.svc.Study.Studied(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(studied) != 1 || studied[0].CardID != first.CardID || studied[0].Front != first.Front ||
		studied[0].Rating != contracts.RatingAgain || studied[0].IntervalHuman != res.IntervalHuman || !studied[0].Undoable {
		t.Fatalf("Studied = %+v, want the one undoable again on %q (%s)", studied, first.Front, res.IntervalHuman)
	}
	_, err = e.svc.Study.UndoLastReview(e.user("eve@example.com"), s.ID)
	wantKind(t, err, contracts.KindNotFound)

	e.clock.Advance(5 * time.Second)
	u, err := e.svc.Study.UndoLastReview(ctx, s.ID)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if u.CardID != first.CardID || u.Rating != contracts.RatingAgain {
		t.Errorf("undo = %+v, want the again on %s", u, first.CardID)
	}
	if u.Session.Reviewed != 0 || u.Session.Remaining != 3 || u.Session.Current == nil ||
		u.Session.Current.CardID != first.CardID || u.Session.Current.Position != first.Position {
		t.Errorf("session after undo = %+v, want nothing reviewed, 3 remaining (the re-queued step gone), card %s at %d again",
			u.Session, first.CardID, first.Position)
	}
	after, err := e.svc.Cards.GetCard(ctx, first.CardID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after.State, before.State) {
		t.Errorf("card schedule after undo = %+v, want it as before the rating %+v", after.State, before.State)
	}
	if snap, err := e.svc.Study.Snapshot(ctx, d.ID); err != nil || snap.NewToday != snapBefore.NewToday {
		t.Errorf("new cards left today after undo = %d (%v), want %d: the undone review still counts", snap.NewToday, err, snapBefore.NewToday)
	}
	if studied, err = e.svc.Study.Studied(ctx, s.ID); err != nil || len(studied) != 0 {
		t.Errorf("Studied after undo = %+v, %v; want none", studied, err)
	}
	_, err = e.svc.Study.UndoLastReview(ctx, s.ID)
	wantKind(t, err, contracts.KindConflict) // undone already

	// Rate all three good; undo takes back the last, then the one before.
	var rated []contracts.ReviewResult
	for cur := u.Session.Current; cur != nil; {
		e.clock.Advance(time.Second)
		r := e.review(ctx, s.ID, cur.CardID, contracts.RatingGood)
		rated = append(rated, r)
		cur = r.Next
		if cur == nil && r.NextCardAt != nil {
			e.clock.Set(*r.NextCardAt)
			sess, err := e.svc.Study.GetSession(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			cur = sess.Current
		}
	}
	studied, err = e.svc.Study.Studied(ctx, s.ID)
	if err != nil || len(studied) != len(rated) {
		t.Fatalf("Studied = %+v, %v; want %d ratings", studied, err, len(rated))
	}
	for i, st := range studied {
		if st.CardID != rated[i].CardID || st.Rating != contracts.RatingGood || st.Undoable != (i == len(studied)-1) || st.Front == "" {
			t.Errorf("Studied[%d] = %+v, want %s rated good, undoable only when last", i, st, rated[i].CardID)
		}
	}
	lastID := rated[len(rated)-1].CardID
	u, err = e.svc.Study.UndoLastReview(ctx, s.ID)
	if err != nil || u.CardID != lastID || u.Session.Done || u.Session.Current == nil || u.Session.Current.CardID != lastID {
		t.Fatalf("undo of the last good = %+v, %v; want %s waiting again", u, err, lastID)
	}
	u, err = e.svc.Study.UndoLastReview(ctx, s.ID)
	if err != nil || u.CardID != rated[len(rated)-2].CardID {
		t.Fatalf("second undo = %+v, %v; want the rating before it (%s)", u, err, rated[len(rated)-2].CardID)
	}

	// A card rescheduled after its rating keeps the reschedule: the undo refuses.
	cur := u.Session.Current
	e.review(ctx, s.ID, cur.CardID, contracts.RatingGood)
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: []string{cur.CardID}, Reset: true}); err != nil {
		t.Fatal(err)
	}
	reset, _ := e.svc.Cards.GetCard(ctx, cur.CardID)
	_, err = e.svc.Study.UndoLastReview(ctx, s.ID)
	wantKind(t, err, contracts.KindConflict)
	if again, _ := e.svc.Cards.GetCard(ctx, cur.CardID); !reflect.DeepEqual(again.State, reset.State) {
		t.Errorf("a refused undo changed the card: %+v -> %+v", reset.State, again.State)
	}

	// Cram: the schedule never changed; undo removes the card's return.
	cram, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, Cram: true})
	if err != nil || cram.Current == nil {
		t.Fatalf("cram session %+v, %v", cram, err)
	}
	cc := *cram.Current
	cb, _ := e.svc.Cards.GetCard(ctx, cc.CardID)
	r := e.review(ctx, cram.ID, cc.CardID, contracts.RatingAgain)
	u, err = e.svc.Study.UndoLastReview(ctx, cram.ID)
	if err != nil || u.Session.Remaining != cram.Remaining || u.Session.Reviewed != 0 {
		t.Fatalf("cram undo = %+v, %v; want %d remaining again (after %+v)", u, err, cram.Remaining, r)
	}
	if ca, _ := e.svc.Cards.GetCard(ctx, cc.CardID); !reflect.DeepEqual(ca.State, cb.State) {
		t.Errorf("cram undo changed the schedule: %+v -> %+v", cb.State, ca.State)
	}
}
