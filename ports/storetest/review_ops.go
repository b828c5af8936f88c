package storetest

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testReviewOperations checks what undo_changes needs of the review log
// (issue 26 §2.2): a review keeps the operation, credential and card
// version it was written with (GetReview); OperationReviews picks live
// ones by operation or by credential and time, newest first, below a
// cursor, never another user's, one without an operation or an undone
// one; SetReviewKind turns a log undone and back, conflict when its kind
// moved on; an undone review leaves the statistics and the history yet
// still counts against the day's limits (StudiedSince); OperationStates
// counts an operation's reviews with its records.
func testReviewOperations(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Reviewed by agents")
	cs := f.insert(a, f.card(d.ID, "one", "1"), f.card(d.ID, "two", "2"), f.card(d.ID, "three", "3"))
	db := f.deck(b, "Other")
	cb := f.insert(b, f.card(db.ID, "theirs", "x"))
	rs := f.s.Reviews()
	at := f.now.Add(time.Minute)
	logged := func(user string, c ports.CardRow, op, cred string, when time.Time) ports.ReviewLog {
		t.Helper()
		r := f.reviewLog(user, c, "", contracts.RatingGood, when, 1500)
		prev := c.State
		r.PrevState, r.Kind, r.OperationID, r.CredentialID, r.CardVersion = &prev, ports.ReviewKindReview, op, cred, c.Version+1
		must(t, rs.AppendReview(f.ctx, r))
		return r
	}
	r1 := logged(a, cs[0], "op-r1", "key-1", at)
	r2 := logged(a, cs[1], "op-r2", "key-1", at.Add(time.Minute))
	r3 := logged(a, cs[2], "op-r3", "key-2", at.Add(2*time.Minute))
	f.review(a, cs[2], "", contracts.RatingAgain, at.Add(3*time.Minute), 0) // no operation
	logged(b, cb[0], "op-r1", "key-1", at)

	got, err := rs.GetReview(f.ctx, a, r2.ID)
	must(t, err)
	if got.OperationID != "op-r2" || got.CredentialID != "key-1" || got.CardVersion != cs[1].Version+1 || got.CardID != cs[1].ID ||
		got.Kind != ports.ReviewKindReview || got.PrevState == nil || got.Rating != contracts.RatingGood || !got.ReviewedAt.Equal(ms(r2.ReviewedAt)) {
		t.Errorf("GetReview = %+v, want %+v", got, r2)
	}
	_, err = rs.GetReview(f.ctx, b, r2.ID)
	wantKind(t, err, contracts.KindNotFound, "GetReview of another user's review")

	ids := func(logs []ports.ReviewLog) []string {
		out := []string{}
		for _, l := range logs {
			out = append(out, l.ID)
		}
		return out
	}
	list := func(fl contracts.ChangeFilter, before string, limit int) []string {
		t.Helper()
		logs, err := rs.OperationReviews(f.ctx, a, fl, before, limit)
		must(t, err)
		return ids(logs)
	}
	sameIDs(t, list(contracts.ChangeFilter{OperationIDs: []string{"op-r1", "op-r3"}}, "", 10), []string{r3.ID, r1.ID}, "OperationReviews by operation")
	sameIDs(t, list(contracts.ChangeFilter{CredentialID: "key-1"}, "", 10), []string{r2.ID, r1.ID}, "OperationReviews by credential")
	sameIDs(t, list(contracts.ChangeFilter{Since: at.Add(time.Minute)}, "", 10), []string{r3.ID, r2.ID}, "OperationReviews since")
	sameIDs(t, list(contracts.ChangeFilter{Since: at, Until: at.Add(2 * time.Minute)}, "", 10), []string{r2.ID, r1.ID}, "OperationReviews until")
	sameIDs(t, list(contracts.ChangeFilter{}, r3.ID, 1), []string{r2.ID}, "OperationReviews below a cursor")

	counted := func() ports.StudiedCounts {
		c, err := rs.StudiedSince(f.ctx, a, d.ID, f.now)
		must(t, err)
		return c
	}
	days := func() int {
		ds, err := rs.ReviewDays(f.ctx, a, d.ID, f.now.Add(-day))
		must(t, err)
		n := 0
		for _, dd := range ds {
			n += dd.Reviews
		}
		return n
	}
	before, daysBefore := counted(), days()

	wantKind(t, rs.SetReviewKind(f.ctx, b, r1.ID, ports.ReviewKindReview, ports.ReviewKindUndone), contracts.KindNotFound, "SetReviewKind of another user's review")
	must(t, rs.SetReviewKind(f.ctx, a, r1.ID, ports.ReviewKindReview, ports.ReviewKindUndone))
	wantKind(t, rs.SetReviewKind(f.ctx, a, r1.ID, ports.ReviewKindReview, ports.ReviewKindUndone), contracts.KindConflict, "SetReviewKind of a review undone already")
	sameIDs(t, list(contracts.ChangeFilter{CredentialID: "key-1"}, "", 10), []string{r2.ID}, "OperationReviews after an undo")
	if got := counted(); got != before {
		t.Errorf("StudiedSince after an undo = %+v, want %+v: an undone review still uses its slot", got, before)
	}
	if got := days(); got != daysBefore-1 {
		t.Errorf("ReviewDays after an undo counts %d reviews, want %d", got, daysBefore-1)
	}
	hist, err := rs.CardReviews(f.ctx, a, cs[0].ID, 10)
	must(t, err)
	if len(hist) != 0 {
		t.Errorf("CardReviews of the undone review's card = %+v, want none", hist)
	}
	states, err := f.s.Changes().OperationStates(f.ctx, a, []string{"op-r1", "op-r2", "op-none"}, at)
	must(t, err)
	if states["op-r1"] != (ports.OperationState{Records: 1, Undone: 1}) || states["op-r2"] != (ports.OperationState{Records: 1}) || len(states) != 2 {
		t.Errorf("OperationStates with reviews = %+v, want op-r1 1 undone of 1, op-r2 1 pending", states)
	}
	// A live review logged before reviewsSince is too old; an undone one
	// is not counted so.
	states, err = f.s.Changes().OperationStates(f.ctx, a, []string{"op-r1", "op-r2"}, at.Add(time.Hour))
	must(t, err)
	if states["op-r1"] != (ports.OperationState{Records: 1, Undone: 1}) || states["op-r2"] != (ports.OperationState{Records: 1, TooOld: 1}) {
		t.Errorf("OperationStates since an hour after the reviews = %+v, want op-r1 1 undone of 1, op-r2 1 pending and too old", states)
	}

	must(t, rs.SetReviewKind(f.ctx, a, r1.ID, ports.ReviewKindUndone, ports.ReviewKindReview))
	if got := days(); got != daysBefore {
		t.Errorf("ReviewDays after the review is applied again counts %d, want %d", got, daysBefore)
	}
	sameIDs(t, list(contracts.ChangeFilter{CredentialID: "key-1"}, "", 10), []string{r2.ID, r1.ID}, "OperationReviews after the redo")
}
