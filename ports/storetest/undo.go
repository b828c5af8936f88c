package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testSessionReviewsAndUndo checks what undoing a rating needs: the
// session's ratings in order with the schedule each replaced
// (SessionReviews), reopening a rated item together with the learning
// step it re-queued (ReopenItem), and deleting the review log
// (DeleteReview), each scoped to its user.
func testSessionReviewsAndUndo(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Undo")
	cs := f.insert(a, f.reviewCard(d.ID, "one", f.now), f.reviewCard(d.ID, "two", f.now), f.card(d.ID, "three", "x"))
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	ss := f.s.Sessions()
	must(t, ss.CreateSession(f.ctx, sess, ids(cs)))

	empty, err := ss.SessionReviews(f.ctx, a, sess.ID)
	must(t, err)
	if len(empty) != 0 {
		t.Errorf("SessionReviews before any rating = %+v, want none", empty)
	}
	_, err = ss.SessionReviews(f.ctx, b, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "SessionReviews of another user's session")
	_, err = ss.SessionReviews(f.ctx, a, "ses-missing")
	wantKind(t, err, contracts.KindNotFound, "SessionReviews of a missing session")

	// Rate card one (position 0) and card three (position 2), skip card
	// two (position 1, completed without a review), re-queue card three.
	at0, at1, at2 := f.now.Add(time.Minute), f.now.Add(2*time.Minute), f.now.Add(3*time.Minute)
	rate := func(pos int, c ports.CardRow, rating contracts.Rating, at time.Time) ports.ReviewLog {
		t.Helper()
		must(t, ss.CompleteItem(f.ctx, a, sess.ID, pos, at))
		r := f.reviewLog(a, c, sess.ID, rating, at, 900)
		prev := c.State
		r.PrevState, r.Kind, r.PrevInterval = &prev, ports.ReviewKindReview, c.State.ScheduledDays
		if rating == contracts.RatingAgain {
			r.OperationID, r.CardVersion = "op-again", c.Version+1
		}
		must(t, f.s.Reviews().AppendReview(f.ctx, r))
		return r
	}
	first := rate(0, cs[0], contracts.RatingGood, at0)
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 1, at1))
	second := rate(2, cs[2], contracts.RatingAgain, at2)
	must(t, ss.AppendItem(f.ctx, a, sess.ID, cs[2].ID)) // position 3: its learning step
	// A review of the same card outside the session is not the session's.
	f.review(a, cs[2], "", contracts.RatingGood, at2, 0)

	got, err := ss.SessionReviews(f.ctx, a, sess.ID)
	must(t, err)
	if len(got) != 2 || got[0].Position != 0 || got[1].Position != 2 || got[0].Log.ID != first.ID || got[1].Log.ID != second.ID {
		t.Fatalf("SessionReviews = %+v, want the ratings at positions 0 and 2 in order", got)
	}
	g := got[1].Log
	if g.CardID != cs[2].ID || g.Rating != contracts.RatingAgain || g.Kind != ports.ReviewKindReview || g.DurationMs != 900 ||
		g.OperationID != "op-again" || got[0].Log.OperationID != "" ||
		!g.ReviewedAt.Equal(ms(at2)) || g.State.Phase != second.State.Phase || !g.State.Due.Equal(ms(second.State.Due)) {
		t.Errorf("SessionReviews log = %+v, want %+v", g, second)
	}
	if g.PrevState == nil || !reflect.DeepEqual(*g.PrevState, cs[2].State) {
		t.Errorf("SessionReviews PrevState = %+v, want the card's schedule before the review %+v", g.PrevState, cs[2].State)
	}
	p := got[0].Log.PrevState
	if p == nil || p.Phase != contracts.PhaseReview || !p.Due.Equal(ms(cs[0].State.Due)) || p.LastReview == nil ||
		!p.LastReview.Equal(ms(*cs[0].State.LastReview)) || p.Stability != 4.5 || p.Reps != 2 {
		t.Errorf("SessionReviews PrevState of a review card = %+v, want %+v", p, cs[0].State)
	}

	// Reopen the last rating: its item is pending again, the learning step
	// it queued (position 3) is gone, the skipped item stays done.
	wantKind(t, ss.ReopenItem(f.ctx, b, sess.ID, 2), contracts.KindNotFound, "ReopenItem in another user's session")
	wantKind(t, ss.ReopenItem(f.ctx, a, sess.ID, 99), contracts.KindNotFound, "ReopenItem of a missing position")
	must(t, ss.ReopenItem(f.ctx, a, sess.ID, 2))
	wantKind(t, ss.ReopenItem(f.ctx, a, sess.ID, 2), contracts.KindConflict, "ReopenItem of a pending item")
	reviewed, remaining, err := ss.Progress(f.ctx, a, sess.ID)
	must(t, err)
	if reviewed != 2 || remaining != 1 {
		t.Errorf("Progress after ReopenItem = %d reviewed, %d remaining; want 2, 1 (the re-queued step removed)", reviewed, remaining)
	}
	it, err := ss.PendingItem(f.ctx, a, sess.ID, cs[2].ID)
	must(t, err)
	if it.Position != 2 {
		t.Errorf("PendingItem after ReopenItem = position %d, want 2", it.Position)
	}

	// The review log goes; another user's cannot be deleted.
	wantKind(t, f.s.Reviews().DeleteReview(f.ctx, b, second.ID), contracts.KindNotFound, "DeleteReview of another user's review")
	must(t, f.s.Reviews().DeleteReview(f.ctx, a, second.ID))
	wantKind(t, f.s.Reviews().DeleteReview(f.ctx, a, second.ID), contracts.KindNotFound, "DeleteReview twice")
	got, err = ss.SessionReviews(f.ctx, a, sess.ID)
	must(t, err)
	if len(got) != 1 || got[0].Log.ID != first.ID {
		t.Errorf("SessionReviews after the undo = %+v, want only the first rating", got)
	}
	all, err := f.s.Reviews().ListReviews(f.ctx, a, "", 10)
	must(t, err)
	if len(all) != 2 {
		t.Errorf("ListReviews after DeleteReview = %d logs, want 2 (the first rating and the one outside the session)", len(all))
	}

	// A log written without a previous schedule reads back without one.
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 2, at2.Add(time.Minute)))
	old := f.reviewLog(a, cs[2], sess.ID, contracts.RatingHard, at2.Add(time.Minute), 0)
	must(t, f.s.Reviews().AppendReview(f.ctx, old))
	got, err = ss.SessionReviews(f.ctx, a, sess.ID)
	must(t, err)
	if len(got) != 2 || got[1].Log.ID != old.ID || got[1].Log.PrevState != nil {
		t.Errorf("SessionReviews with a log without PrevState = %+v, want it last with PrevState nil", got)
	}
}
