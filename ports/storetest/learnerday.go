package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testStudyCards checks the study queue query: learning cards by due,
// review-phase cards in each order, cram, limits and isolation.
func testStudyCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, other := f.deck(a, "Queue"), f.deck(a, "Other")
	now := f.now
	// Review cards: due, interval, stability and last review chosen so
	// each order differs.
	mk := func(front string, due time.Time, ivl int, stab float64, last time.Time) ports.CardRow {
		c := f.reviewCard(d.ID, front, due)
		c.State.ScheduledDays, c.State.Stability, c.State.LastReview = ivl, stab, &last
		return c
	}
	// x: due 10 days ago, interval 100, stability 100, last 110 days ago: elapsed/S 1.1, overdue 10/100
	x := mk("x", now.Add(-10*day), 100, 100, now.Add(-110*day))
	// y: due 2 days ago, interval 2, stability 2, last 4 days ago: elapsed/S 2, overdue 2/2
	y := mk("y", now.Add(-2*day), 2, 2, now.Add(-4*day))
	// z: due 5 days ago, interval 20, stability 10, last 25 days ago: elapsed/S 2.5, overdue 5/20
	z := mk("z", now.Add(-5*day), 20, 10, now.Add(-25*day))
	later := mk("later", now.Add(2*day), 3, 3, now.Add(-day))
	learnSoon := f.reviewCard(d.ID, "learning soon", now.Add(5*time.Minute))
	learnSoon.State.Phase = contracts.PhaseLearning
	relearnDue := f.reviewCard(d.ID, "relearning due", now.Add(-time.Minute))
	relearnDue.State.Phase = contracts.PhaseRelearning
	learnTomorrow := f.reviewCard(d.ID, "learning tomorrow", now.Add(day))
	learnTomorrow.State.Phase = contracts.PhaseLearning
	susp := mk("suspended", now.Add(-30*day), 3, 3, now.Add(-33*day))
	susp.Suspended = true
	fresh := f.card(d.ID, "new", "x")
	f.insert(a, x, y, z, later, learnSoon, relearnDue, learnTomorrow, susp, fresh, f.reviewCard(other.ID, "elsewhere", now.Add(-day)))
	bd := f.deck(b, "Theirs")
	f.insert(b, f.reviewCard(bd.ID, "theirs", now.Add(-day)))

	q := ports.StudyQuery{LearnDueBy: now.Add(time.Hour), ReviewDueBy: now, ReviewLimit: 10, Now: now}
	for _, c := range []struct {
		order string
		want  []string
	}{
		{"due", []string{x.ID, z.ID, y.ID}},
		{"", []string{x.ID, z.ID, y.ID}},
		{"retrievability", []string{z.ID, y.ID, x.ID}},
		{"overdueness", []string{y.ID, z.ID, x.ID}},
	} {
		q.Order = c.order
		learning, review, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
		must(t, err)
		sameIDs(t, ids(learning), []string{relearnDue.ID, learnSoon.ID}, "StudyCards learning, earliest due first")
		sameIDs(t, ids(review), c.want, "StudyCards review order "+c.order)
	}
	q.Order = "random"
	_, review, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
	must(t, err)
	got := ids(review)
	slices.Sort(got)
	want := []string{x.ID, y.ID, z.ID}
	slices.Sort(want)
	sameIDs(t, got, want, "StudyCards random: the due cards, in any order")

	q.Order, q.ReviewLimit = "due", 2
	_, review, err = f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
	must(t, err)
	sameIDs(t, ids(review), []string{x.ID, z.ID}, "StudyCards with a review limit")
	q.ReviewLimit, q.ReviewDueBy = 10, now.Add(3*day)
	_, review, err = f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
	must(t, err)
	sameIDs(t, ids(review), []string{x.ID, z.ID, y.ID, later.ID}, "StudyCards reviewing ahead")
	q.ReviewLimit = 0
	learning, review, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
	must(t, err)
	if len(review) != 0 || len(learning) != 2 {
		t.Errorf("StudyCards with review limit 0: %d learning, %d review; want 2 and 0 (learning is outside the cap)", len(learning), len(review))
	}
	cram := ports.StudyQuery{ReviewLimit: 10, Order: "due", Now: now, Cram: true}
	learning, review, err = f.s.Cards().StudyCards(f.ctx, a, d.ID, cram)
	must(t, err)
	if len(learning) != 0 {
		t.Errorf("cram: %d learning cards, want none apart", len(learning))
	}
	sameIDs(t, ids(review), []string{x.ID, z.ID, y.ID, relearnDue.ID, learnSoon.ID, learnTomorrow.ID, later.ID}, "StudyCards cram: every unsuspended non-new card by due")

	_, _, err = f.s.Cards().StudyCards(f.ctx, a, d.ID, ports.StudyQuery{ReviewLimit: 1, Order: "alphabetical", Now: now})
	wantKind(t, err, contracts.KindInvalid, "StudyCards with an unknown order")
	learning, review, err = f.s.Cards().StudyCards(f.ctx, b, d.ID, q)
	must(t, err)
	if len(learning)+len(review) != 0 {
		t.Error("StudyCards of another user's deck returned cards")
	}
}

// testDueCounts checks the bucketed forecast count with uneven buckets
// (a 23-hour day).
func testDueCounts(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Forecast")
	start := f.now
	bounds := []time.Time{start, start.Add(23 * time.Hour), start.Add(47 * time.Hour)}
	f.insert(a,
		f.reviewCard(d.ID, "overdue", start.Add(-5*day)),
		f.reviewCard(d.ID, "at start", start),
		f.reviewCard(d.ID, "22h", start.Add(22*time.Hour)),
		f.reviewCard(d.ID, "at 23h", start.Add(23*time.Hour)),
		f.reviewCard(d.ID, "46h", start.Add(46*time.Hour)),
		f.reviewCard(d.ID, "at the end", start.Add(47*time.Hour)),
		f.card(d.ID, "new", "x"),
	)
	got, err := f.s.Cards().DueCounts(f.ctx, a, d.ID, bounds)
	must(t, err)
	if !slices.Equal(got, []int{3, 2}) {
		t.Errorf("DueCounts = %v, want [3 2] (bucket 0 holds the overdue card)", got)
	}
	got, err = f.s.Cards().DueCounts(f.ctx, b, d.ID, bounds)
	must(t, err)
	if !slices.Equal(got, []int{0, 0}) {
		t.Errorf("DueCounts of another user's deck = %v", got)
	}
	got, err = f.s.Cards().DueCounts(f.ctx, a, "", bounds[:1])
	must(t, err)
	if len(got) != 0 {
		t.Errorf("DueCounts with one bound = %v, want none", got)
	}
}

// testNextDueItem checks which pending item a session shows: a due
// learning step first, then the queue in order, then a step within the
// learn-ahead limit, then the step due next.
func testNextDueItem(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Steps")
	now := f.now
	rev := f.reviewCard(d.ID, "review", now.Add(-day))
	fresh := f.card(d.ID, "new", "x")
	step := func(front string, due time.Time) ports.CardRow {
		c := f.reviewCard(d.ID, front, due)
		c.State.Phase = contracts.PhaseLearning
		return c
	}
	soon, later, dueNow := step("in 5 min", now.Add(5*time.Minute)), step("in 1 h", now.Add(time.Hour)), step("due", now.Add(-time.Second))
	f.insert(a, rev, fresh, soon, later, dueNow)
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: now, ExpiresAt: now.Add(day), Mode: "cram"}
	ss := f.s.Sessions()
	must(t, ss.CreateSession(f.ctx, sess, []string{later.ID, rev.ID, soon.ID, fresh.ID, dueNow.ID}))
	row, err := ss.GetSession(f.ctx, a, sess.ID)
	must(t, err)
	if row.Mode != "cram" {
		t.Errorf("session mode = %q, want cram", row.Mode)
	}
	ahead := now.Add(20 * time.Minute)
	done := 0
	expect := func(cardID string, learning bool, what string) {
		t.Helper()
		it, err := ss.NextDueItem(f.ctx, a, sess.ID, now, ahead)
		must(t, err)
		if it == nil || it.CardID != cardID || it.Learning != learning {
			t.Fatalf("%s: NextDueItem = %+v, want card %s (learning %v)", what, it, cardID, learning)
		}
		// NextDueCard picks the same item, with its card and the progress.
		nd, err := ss.NextDueCard(f.ctx, a, sess.ID, now, ahead)
		must(t, err)
		if nd.Item == nil || *nd.Item != *it || nd.Card.ID != cardID || nd.Card.Front != f.get(a, cardID).Front ||
			nd.Card.State.Phase != f.get(a, cardID).State.Phase || nd.Reviewed != done || nd.Remaining != 5-done {
			t.Fatalf("%s: NextDueCard = %+v (item %+v), want item %+v of card %s, %d reviewed and %d pending", what, nd, nd.Item, *it, cardID, done, 5-done)
		}
		must(t, ss.CompleteItem(f.ctx, a, sess.ID, it.Position, now))
		done++
	}
	expect(dueNow.ID, true, "a due step first, though queued last")
	expect(rev.ID, false, "then the queue in order")
	expect(fresh.ID, false, "new after review, in queue order")
	expect(soon.ID, true, "then a step within learn-ahead")
	it, err := ss.NextDueItem(f.ctx, a, sess.ID, now, ahead)
	must(t, err)
	if it == nil || it.CardID != later.ID || !it.Due.Equal(later.State.Due) {
		t.Fatalf("the step beyond learn-ahead: %+v, want it with its due time", it)
	}
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, it.Position, now))
	if it, err := ss.NextDueItem(f.ctx, a, sess.ID, now, ahead); err != nil || it != nil {
		t.Errorf("nothing pending: %+v, %v", it, err)
	}
	if nd, err := ss.NextDueCard(f.ctx, a, sess.ID, now, ahead); err != nil || nd.Item != nil || nd.Reviewed != 5 || nd.Remaining != 0 {
		t.Errorf("nothing pending: NextDueCard = %+v, %v; want no item, 5 reviewed", nd, err)
	}
	_, err = ss.NextDueItem(f.ctx, b, sess.ID, now, ahead)
	wantKind(t, err, contracts.KindNotFound, "NextDueItem of another user's session")
	_, err = ss.NextDueCard(f.ctx, b, sess.ID, now, ahead)
	wantKind(t, err, contracts.KindNotFound, "NextDueCard of another user's session")
	plain := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: now, ExpiresAt: now.Add(day)}
	must(t, ss.CreateSession(f.ctx, plain, nil))
	if nd, err := ss.NextDueCard(f.ctx, a, plain.ID, now, ahead); err != nil || nd.Item != nil || nd.Reviewed+nd.Remaining != 0 {
		t.Errorf("an empty session: NextDueCard = %+v, %v", nd, err)
	}
	if row, _ := ss.GetSession(f.ctx, a, plain.ID); row.Mode != "normal" {
		t.Errorf("a session without a mode reads back as %q, want normal", row.Mode)
	}
}

// testReviewKindsAndDays checks review-log kinds, learner days and the
// young/mature split.
func testReviewKindsAndDays(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Kinds")
	now := f.now
	c := f.insert(a, f.reviewCard(d.ID, "c", now), f.card(d.ID, "n", "x"))
	rv, fresh := c[0], c[1]
	add := func(card ports.CardRow, kind string, rating contracts.Rating, at time.Time, dayNo, prevIvl int) {
		r := f.reviewLog(a, card, "", rating, at, 0)
		r.Kind, r.Day, r.PrevInterval = kind, dayNo, prevIvl
		must(t, f.s.Reviews().AppendReview(f.ctx, r))
	}
	today := int(now.Unix() / 86400)
	// Late in the UTC day but recorded on the learner's next day.
	add(rv, ports.ReviewKindReview, contracts.RatingGood, now, today+1, 30)  // mature pass
	add(rv, ports.ReviewKindReview, contracts.RatingAgain, now, today+1, 21) // mature fail
	add(rv, ports.ReviewKindReview, contracts.RatingHard, now, today+1, 20)  // young pass
	add(fresh, ports.ReviewKindReview, contracts.RatingGood, now, today+1, 0)
	add(rv, ports.ReviewKindCram, contracts.RatingAgain, now, today+1, 30)
	add(rv, ports.ReviewKindManual, contracts.RatingGood, now, today+1, 30)
	add(rv, "", contracts.RatingGood, now.Add(time.Minute), 0, 3) // no kind: review; no day: UTC day

	days, err := f.s.Reviews().ReviewDays(f.ctx, a, "", now.Add(-day))
	must(t, err)
	wantDay := time.Unix(int64(today)*86400, 0).UTC()
	if len(days) != 2 || !days[0].Day.Equal(wantDay) || days[0].Reviews != 1 || !days[1].Day.Equal(wantDay.Add(day)) || days[1].Reviews != 5 {
		t.Errorf("ReviewDays = %+v; want 1 on the UTC day (no learner day recorded) and 5 on the learner's next day (cram counted, manual not)", days)
	}
	st, err := f.s.Reviews().StudiedSince(f.ctx, a, d.ID, now.Add(-time.Hour))
	must(t, err)
	if st.New != 1 || st.Review != 4 {
		t.Errorf("StudiedSince = %+v, want 1 new and 4 reviews (cram and manual not counted)", st)
	}
	r, err := f.s.Reviews().RetentionSplit(f.ctx, a, "", now.Add(-time.Hour), 21)
	must(t, err)
	if want := (ports.RetentionCounts{Young: 2, YoungPassed: 2, Mature: 2, MaturePassed: 1}); r != want {
		t.Errorf("RetentionSplit = %+v, want %+v", r, want)
	}
	// The answer buttons: the new card's good is learning; 20 and 3 days
	// are young (hard, good); 30 and 21 mature (good, again); cram and
	// manual entries are left out.
	b, err := f.s.Reviews().AnswerButtons(f.ctx, a, "", now.Add(-time.Hour), 21)
	must(t, err)
	if want := (contracts.Buttons{Learning: [4]int{0, 0, 1, 0}, Young: [4]int{0, 1, 1, 0}, Mature: [4]int{1, 0, 1, 0}}); b != want {
		t.Errorf("AnswerButtons = %+v, want %+v", b, want)
	}
	if b, err := f.s.Reviews().AnswerButtons(f.ctx, a, d.ID, now.Add(time.Hour), 21); err != nil || b != (contracts.Buttons{}) {
		t.Errorf("AnswerButtons after the reviews = %+v, %v; want none", b, err)
	}
	total, passed, err := f.s.Reviews().Retention(f.ctx, a, "", now.Add(-time.Hour))
	must(t, err)
	if total != 4 || passed != 3 {
		t.Errorf("Retention = %d/%d, want 3/4 (normal reviews only)", passed, total)
	}
	if n, err := f.s.Reviews().NewCardsStudied(f.ctx, a, "", now.Add(-time.Hour)); err != nil || n != 1 {
		t.Errorf("NewCardsStudied = %d, %v; want 1", n, err)
	}
}

// testReviewTarget checks the one read of a review: the session, the
// card's lowest pending item, the card, its deck with its preset and the
// account's settings; not found when the card is not pending there.
func testReviewTarget(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Target")
	now := f.now
	c := f.insert(a, f.reviewCard(d.ID, "target", now.Add(-day)), f.card(d.ID, "other", "x"))
	card, other := c[0], c[1]
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: now, ExpiresAt: now.Add(day), Mode: "normal"}
	ss := f.s.Sessions()
	must(t, ss.CreateSession(f.ctx, sess, []string{other.ID, card.ID, card.ID}))
	got, err := ss.ReviewTarget(f.ctx, a, sess.ID, card.ID)
	must(t, err)
	deck, err := f.s.Decks().DeckWithoutCounts(f.ctx, a, d.ID)
	must(t, err)
	want := f.get(a, card.ID)
	if got.Session.DeckID != d.ID || !got.Session.ExpiresAt.Equal(sess.ExpiresAt) || got.Session.Mode != "normal" ||
		got.Item.Position != 1 || got.Item.CardID != card.ID || got.Card.ID != card.ID || got.Card.Version != want.Version ||
		!got.Card.State.Due.Equal(want.State.Due) || got.Card.State.Phase != want.State.Phase || got.Card.Front != want.Front {
		t.Errorf("ReviewTarget = %+v, want the session, position 1 and card %+v", got, want)
	}
	if got.Deck.ID != deck.ID || got.Deck.Name != deck.Name || !reflect.DeepEqual(got.Deck.Settings, deck.Settings) {
		t.Errorf("ReviewTarget deck = %+v, want %+v", got.Deck, deck)
	}
	if got.SettingsFound {
		t.Errorf("ReviewTarget found settings %+v for an account that stored none", got.Settings)
	}
	set := contracts.DefaultAccountSettings()
	set.Timezone, set.RolloverHour, set.NewCardsPerDay, set.UpdatedAt = "Europe/Berlin", 3, 7, now
	must(t, f.s.Settings().PutSettings(f.ctx, a, set))
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 1, now))
	got, err = ss.ReviewTarget(f.ctx, a, sess.ID, card.ID)
	must(t, err)
	if got.Item.Position != 2 {
		t.Errorf("after the first showing was reviewed, ReviewTarget position = %d, want 2", got.Item.Position)
	}
	if !got.SettingsFound || got.Settings.Timezone != "Europe/Berlin" || got.Settings.RolloverHour != 3 || got.Settings.NewCardsPerDay != 7 ||
		!got.Settings.UpdatedAt.Equal(now) {
		t.Errorf("ReviewTarget settings = %+v (found %v), want the stored ones", got.Settings, got.SettingsFound)
	}
	must(t, ss.CompleteItem(f.ctx, a, sess.ID, 2, now))
	_, err = ss.ReviewTarget(f.ctx, a, sess.ID, card.ID)
	wantKind(t, err, contracts.KindNotFound, "ReviewTarget of a card with no pending item")
	_, err = ss.ReviewTarget(f.ctx, b, sess.ID, other.ID)
	wantKind(t, err, contracts.KindNotFound, "ReviewTarget in another user's session")
	_, err = ss.ReviewTarget(f.ctx, a, "no-such-session", other.ID)
	wantKind(t, err, contracts.KindNotFound, "ReviewTarget in a missing session")
}

// testStudyCardsTies checks StudyQuery.WithTies: the review limit's cards
// and every card due at the same time as the last of them, up to
// TieLimit, in due order; without a limit's worth of cards, all.
func testStudyCardsTies(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Ties")
	now := f.now
	early1, early2 := f.reviewCard(d.ID, "early 1", now.Add(-3*day)), f.reviewCard(d.ID, "early 2", now.Add(-2*day))
	tie := now.Add(-day)
	var ties []ports.CardRow
	for i := range 5 {
		ties = append(ties, f.reviewCard(d.ID, fmt.Sprintf("tie %d", i), tie))
	}
	later := f.reviewCard(d.ID, "later", now.Add(day))
	f.insert(a, append([]ports.CardRow{early1, early2, later}, ties...)...)
	q := ports.StudyQuery{LearnDueBy: now, ReviewDueBy: now, Order: "due", Now: now, WithTies: true, TieLimit: 100}
	count := func(limit, tieLimit int) []ports.CardRow {
		t.Helper()
		q.ReviewLimit, q.TieLimit = limit, tieLimit
		_, review, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, q)
		must(t, err)
		return review
	}
	if got := count(3, 100); len(got) != 7 || got[0].ID != early1.ID || got[1].ID != early2.ID {
		t.Errorf("limit 3 with ties: %d cards (%v); want the 2 earlier and the 5 ties", len(got), ids(got))
	}
	if got := count(2, 100); len(got) != 2 {
		t.Errorf("limit 2 with ties: %d cards; want the 2 earlier (no tie at the edge)", len(got))
	}
	if got := count(3, 4); len(got) != 4 {
		t.Errorf("limit 3, tie limit 4: %d cards; want 4", len(got))
	}
	if got := count(20, 100); len(got) != 7 {
		t.Errorf("limit 20 with ties: %d cards; want every due card (7)", len(got))
	}
	q.WithTies = false
	if got := count(3, 100); len(got) != 3 {
		t.Errorf("limit 3 without ties: %d cards; want 3", len(got))
	}
}
