package storetest

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// review appends a review of c (in the phase c is in) at a time.
func (f *fixture) review(userID string, c ports.CardRow, sessionID string, rating contracts.Rating, at time.Time, durationMs int) ports.ReviewLog {
	f.t.Helper()
	r := f.reviewLog(userID, c, sessionID, rating, at, durationMs)
	must(f.t, f.s.Reviews().AppendReview(f.ctx, r))
	return r
}

// reviewLog builds a review of c without saving it.
func (f *fixture) reviewLog(userID string, c ports.CardRow, sessionID string, rating contracts.Rating, at time.Time, durationMs int) ports.ReviewLog {
	last := at
	return ports.ReviewLog{ID: f.id("rev"), UserID: userID, CardID: c.ID, DeckID: c.DeckID, SessionID: sessionID, Rating: rating,
		PrevPhase: c.State.Phase, ReviewedAt: at, DurationMs: durationMs,
		State: contracts.CardState{Phase: contracts.PhaseReview, Due: at.Add(3 * day), Stability: 3, Difficulty: 5, ScheduledDays: 3,
			Reps: c.State.Reps + 1, Lapses: c.State.Lapses, LastReview: &last}}
}

func testReviews(t *testing.T, f *fixture) {
	a := f.user()
	d, e := f.deck(a, "Reviewed"), f.deck(a, "Also")
	midnight := time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC)
	fresh := f.insert(a, f.card(d.ID, "fresh", "x"))[0]
	mature := f.insert(a, f.reviewCard(d.ID, "mature", midnight))[0]
	learning := f.reviewCard(e.ID, "learning", midnight)
	learning.State.Phase = contracts.PhaseLearning
	learning = f.insert(a, learning)[0]
	matureE := f.insert(a, f.reviewCard(e.ID, "mature e", midnight))[0]

	f.review(a, mature, "", contracts.RatingGood, midnight.Add(-time.Millisecond), 9000) // before since
	f.review(a, fresh, "", contracts.RatingAgain, midnight, 1000)
	f.review(a, mature, "", contracts.RatingAgain, midnight.Add(10*time.Hour), 0)
	f.review(a, mature, "", contracts.RatingHard, midnight.Add(day-time.Millisecond), 3000)
	f.review(a, learning, "", contracts.RatingGood, midnight.Add(day), 2000)
	f.review(a, matureE, "", contracts.RatingEasy, midnight.Add(3*day+time.Hour), 0)
	f.review(a, matureE, "", contracts.RatingGood, midnight.Add(3*day+2*time.Hour), 6000)

	days, err := f.s.Reviews().ReviewDays(f.ctx, a, "", midnight)
	must(t, err)
	want := []ports.ReviewDay{
		{Day: midnight, Reviews: 3, Passed: 1, DurationMs: 4000},
		{Day: midnight.Add(day), Reviews: 1, Passed: 1, DurationMs: 2000},
		{Day: midnight.Add(3 * day), Reviews: 2, Passed: 2, DurationMs: 6000},
	}
	sameDays(t, days, want, "ReviewDays of every deck")
	days, err = f.s.Reviews().ReviewDays(f.ctx, a, d.ID, midnight.Add(-day))
	must(t, err)
	want = []ports.ReviewDay{{Day: midnight.Add(-day), Reviews: 1, Passed: 1, DurationMs: 9000}, {Day: midnight, Reviews: 3, Passed: 1, DurationMs: 4000}}
	sameDays(t, days, want, "ReviewDays of one deck")
	days, err = f.s.Reviews().ReviewDays(f.ctx, a, "", midnight.Add(10*day))
	must(t, err)
	sameDays(t, days, nil, "ReviewDays without reviews")

	total, passed, err := f.s.Reviews().Retention(f.ctx, a, "", midnight)
	must(t, err)
	if total != 4 || passed != 3 {
		t.Errorf("Retention(all) = %d/%d, want 3/4 (reviews of review-phase cards only)", passed, total)
	}
	total, passed, err = f.s.Reviews().Retention(f.ctx, a, d.ID, midnight)
	must(t, err)
	if total != 2 || passed != 1 {
		t.Errorf("Retention(deck) = %d/%d, want 1/2", passed, total)
	}
	n, err := f.s.Reviews().NewCardsStudied(f.ctx, a, "", midnight.Add(-day))
	must(t, err)
	if n != 1 {
		t.Errorf("NewCardsStudied(all) = %d, want 1", n)
	}
	n, err = f.s.Reviews().NewCardsStudied(f.ctx, a, e.ID, midnight.Add(-day))
	must(t, err)
	if n != 0 {
		t.Errorf("NewCardsStudied(other deck) = %d, want 0", n)
	}
	mean, count, err := f.s.Reviews().AverageDuration(f.ctx, a, midnight)
	must(t, err)
	if count != 4 || math.Abs(mean-3000) > 0.001 {
		t.Errorf("AverageDuration = %v over %d, want 3000 over 4 (reviews without a duration skipped)", mean, count)
	}
	mean, count, err = f.s.Reviews().AverageDuration(f.ctx, a, midnight.Add(30*day))
	must(t, err)
	if count != 0 || mean != 0 {
		t.Errorf("AverageDuration without reviews = %v over %d, want 0 over 0", mean, count)
	}
}

// sameDays compares review days up to time normalisation.
func sameDays(t *testing.T, got, want []ports.ReviewDay, what string) {
	t.Helper()
	norm := func(v []ports.ReviewDay) []ports.ReviewDay {
		out := []ports.ReviewDay{}
		for _, d := range v {
			d.Day = ms(d.Day)
			out = append(out, d)
		}
		return out
	}
	if g, w := norm(got), norm(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

func testReviewIsolation(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Mine")
	c := f.insert(a, f.reviewCard(d.ID, "mine", f.now))[0]
	f.review(a, c, "", contracts.RatingGood, f.now, 1000)

	// A review cannot be appended for a card its user does not own.
	err := f.s.Reviews().AppendReview(f.ctx, f.reviewLog(b, c, "", contracts.RatingGood, f.now, 1000))
	wantKind(t, err, contracts.KindNotFound, "AppendReview of another user's card")

	since := f.now.Add(-day)
	days, err := f.s.Reviews().ReviewDays(f.ctx, b, "", since)
	must(t, err)
	if len(days) != 0 {
		t.Errorf("ReviewDays of another user = %+v", days)
	}
	days, err = f.s.Reviews().ReviewDays(f.ctx, b, d.ID, since)
	must(t, err)
	if len(days) != 0 {
		t.Errorf("ReviewDays of another user's deck = %+v", days)
	}
	if total, _, err := f.s.Reviews().Retention(f.ctx, b, "", since); err != nil || total != 0 {
		t.Errorf("Retention of another user = %d, %v", total, err)
	}
	if _, n, err := f.s.Reviews().AverageDuration(f.ctx, b, since); err != nil || n != 0 {
		t.Errorf("AverageDuration of another user counts %d, %v", n, err)
	}
}

func testSessions(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Study")
	cs := f.insert(a, f.reviewCard(d.ID, "one", f.now), f.reviewCard(d.ID, "two", f.now), f.card(d.ID, "three", "x"))
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	queue := []string{cs[0].ID, cs[1].ID, cs[0].ID, cs[2].ID} // a card may come back
	ss := f.s.Sessions()
	must(t, ss.CreateSession(f.ctx, sess, queue))

	got, err := ss.GetSession(f.ctx, a, sess.ID)
	must(t, err)
	if got.ID != sess.ID || got.UserID != a || got.DeckID != d.ID || !got.StartedAt.Equal(sess.StartedAt) || !got.ExpiresAt.Equal(sess.ExpiresAt) {
		t.Errorf("GetSession = %+v, want %+v", got, sess)
	}
	_, err = ss.GetSession(f.ctx, a, "ses-missing")
	wantKind(t, err, contracts.KindNotFound, "GetSession of a missing session")
	wantKind(t, ss.CreateSession(f.ctx, sess, nil), contracts.KindConflict, "CreateSession with a taken id")

	progress := func(wantReviewed, wantRemaining int) {
		t.Helper()
		r, rem, err := ss.Progress(f.ctx, a, sess.ID)
		must(t, err)
		if r != wantReviewed || rem != wantRemaining {
			t.Errorf("Progress = %d reviewed, %d remaining; want %d, %d", r, rem, wantReviewed, wantRemaining)
		}
	}
	next := func(wantPos int, wantCard string) {
		t.Helper()
		it, err := ss.NextItem(f.ctx, a, sess.ID)
		must(t, err)
		if it == nil || it.Position != wantPos || it.CardID != wantCard || it.ReviewedAt != nil {
			t.Fatalf("NextItem = %+v, want pending position %d card %s", it, wantPos, wantCard)
		}
	}
	progress(0, 4)
	next(0, cs[0].ID)
	it, err := ss.PendingItem(f.ctx, a, sess.ID, cs[0].ID)
	must(t, err)
	if it.Position != 0 || it.CardID != cs[0].ID {
		t.Errorf("PendingItem = %+v, want position 0", it)
	}

	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 0, f.now.Add(time.Minute)))
	wantKind(t, ss.CompleteItem(f.ctx, a, sess.ID, 0, f.now.Add(2*time.Minute)), contracts.KindConflict, "CompleteItem twice")
	wantKind(t, ss.CompleteItem(f.ctx, a, sess.ID, 99, f.now), contracts.KindNotFound, "CompleteItem of a missing position")
	progress(1, 3)
	next(1, cs[1].ID)
	it, err = ss.PendingItem(f.ctx, a, sess.ID, cs[0].ID)
	must(t, err)
	if it.Position != 2 {
		t.Errorf("PendingItem after its first item was reviewed = position %d, want 2", it.Position)
	}
	_, err = ss.PendingItem(f.ctx, a, sess.ID, "crd-missing")
	wantKind(t, err, contracts.KindNotFound, "PendingItem of a card not in the session")

	must(t, ss.AppendItem(f.ctx, a, sess.ID, cs[1].ID))
	progress(1, 4)
	for _, pos := range []int{1, 2, 3} {
		must(t, ss.CompleteItem(f.ctx, a, sess.ID, pos, f.now.Add(time.Duration(pos)*time.Minute)))
	}
	next(4, cs[1].ID)
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 4, f.now.Add(5*time.Minute)))
	progress(5, 0)
	last, err := ss.NextItem(f.ctx, a, sess.ID)
	must(t, err)
	if last != nil {
		t.Errorf("NextItem of a finished session = %+v, want nil", last)
	}
	_, err = ss.PendingItem(f.ctx, a, sess.ID, cs[1].ID)
	wantKind(t, err, contracts.KindNotFound, "PendingItem of a reviewed card")

	// An empty session exists and is done.
	empty := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	must(t, ss.CreateSession(f.ctx, empty, nil))
	if it, err := ss.NextItem(f.ctx, a, empty.ID); err != nil || it != nil {
		t.Errorf("NextItem of an empty session = %+v, %v; want nil, nil", it, err)
	}
	if r, rem, err := ss.Progress(f.ctx, a, empty.ID); err != nil || r != 0 || rem != 0 {
		t.Errorf("Progress of an empty session = %d, %d, %v", r, rem, err)
	}
	// A session needs the user's deck and cards.
	wantKind(t, ss.CreateSession(f.ctx, ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: "dck-missing", StartedAt: f.now,
		ExpiresAt: f.now.Add(day)}, nil), contracts.KindNotFound, "CreateSession on a missing deck")
	bad := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	wantKind(t, ss.CreateSession(f.ctx, bad, []string{cs[0].ID, "crd-missing"}), contracts.KindNotFound, "CreateSession with a missing card")
	_, err = ss.GetSession(f.ctx, a, bad.ID)
	wantKind(t, err, contracts.KindNotFound, "GetSession of a session whose creation failed")
	wantKind(t, ss.AppendItem(f.ctx, a, sess.ID, "crd-missing"), contracts.KindNotFound, "AppendItem of a missing card")
}

func testSessionIsolation(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Mine")
	bd := f.deck(b, "Theirs")
	cs := f.insert(a, f.reviewCard(d.ID, "one", f.now))
	theirs := f.insert(b, f.reviewCard(bd.ID, "theirs", f.now))
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	ss := f.s.Sessions()
	must(t, ss.CreateSession(f.ctx, sess, ids(cs)))

	_, err := ss.GetSession(f.ctx, b, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "GetSession of another user's session")
	_, err = ss.NextItem(f.ctx, b, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "NextItem of another user's session")
	_, err = ss.PendingItem(f.ctx, b, sess.ID, cs[0].ID)
	wantKind(t, err, contracts.KindNotFound, "PendingItem of another user's session")
	wantKind(t, ss.CompleteItem(f.ctx, b, sess.ID, 0, f.now), contracts.KindNotFound, "CompleteItem of another user's session")
	wantKind(t, ss.AppendItem(f.ctx, b, sess.ID, theirs[0].ID), contracts.KindNotFound, "AppendItem to another user's session")
	_, _, err = ss.Progress(f.ctx, b, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "Progress of another user's session")
	_, _, err = ss.Progress(f.ctx, a, "ses-missing")
	wantKind(t, err, contracts.KindNotFound, "Progress of a missing session")
	_, err = ss.NextItem(f.ctx, a, "ses-missing")
	wantKind(t, err, contracts.KindNotFound, "NextItem of a missing session")
	// A session on another user's deck, or with another user's cards, cannot be made.
	wantKind(t, ss.CreateSession(f.ctx, ports.StudySessionRow{ID: f.id("ses"), UserID: b, DeckID: d.ID, StartedAt: f.now,
		ExpiresAt: f.now.Add(day)}, nil), contracts.KindNotFound, "CreateSession on another user's deck")
	wantKind(t, ss.CreateSession(f.ctx, ports.StudySessionRow{ID: f.id("ses"), UserID: b, DeckID: bd.ID, StartedAt: f.now,
		ExpiresAt: f.now.Add(day)}, ids(cs)), contracts.KindNotFound, "CreateSession with another user's cards")
	wantKind(t, ss.AppendItem(f.ctx, a, sess.ID, theirs[0].ID), contracts.KindNotFound, "AppendItem of another user's card")

	it, err := ss.NextItem(f.ctx, a, sess.ID)
	must(t, err)
	if it == nil || it.ReviewedAt != nil {
		t.Errorf("another user's calls changed the session: next item %+v", it)
	}
	if r, rem, err := ss.Progress(f.ctx, a, sess.ID); err != nil || r != 0 || rem != 1 {
		t.Errorf("Progress after another user's calls = %d, %d, %v; want 0, 1", r, rem, err)
	}
}
