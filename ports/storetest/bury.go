package storetest

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testBury checks burying: BuryCards, Unbury, what the study reads leave
// out while a card is buried and Search's buried and leech states.
func testBury(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "Bury"), f.deck(a, "Other")
	now := f.now
	until := now.Add(10 * time.Hour) // the next learner's day
	rev := f.reviewCard(d.ID, "review due", now.Add(-day))
	learn := f.reviewCard(d.ID, "learning due", now.Add(-time.Minute))
	learn.State.Phase = contracts.PhaseLearning
	fresh := f.card(d.ID, "new", "x")
	fresh2 := f.card(d.ID, "new two", "x", contracts.LeechTag)
	fresh2.CreatedAt = now.Add(time.Second)
	elsewhere := f.reviewCard(e.ID, "other deck", now.Add(-day))
	f.insert(a, rev, learn, fresh, fresh2, elsewhere)
	bd := f.deck(b, "Theirs")
	theirs := f.insert(b, f.reviewCard(bd.ID, "theirs", now.Add(-day)))[0]

	got, err := f.s.Cards().BuryCards(f.ctx, a, []string{rev.ID, learn.ID, fresh.ID, elsewhere.ID, theirs.ID, "crd-missing", rev.ID}, until)
	must(t, err)
	sameSet(t, got, []string{rev.ID, learn.ID, fresh.ID, elsewhere.ID}, "BuryCards returns the user's cards it buried")
	if c := f.get(a, rev.ID); c.BuriedUntil == nil || !c.BuriedUntil.Equal(ms(until)) || c.Version != 1 {
		t.Errorf("a buried card reads buried until %v, version %d; want %v, version 1", c.BuriedUntil, c.Version, until)
	}
	if c := f.get(b, theirs.ID); c.BuriedUntil != nil {
		t.Errorf("another user's card was buried: %v", c.BuriedUntil)
	}
	if c := f.get(a, fresh2.ID); c.BuriedUntil != nil {
		t.Errorf("a card never buried reads buried until %v", c.BuriedUntil)
	}
	// A shorter burial keeps the longer one.
	_, err = f.s.Cards().BuryCards(f.ctx, a, []string{rev.ID}, now.Add(time.Hour))
	must(t, err)
	if c := f.get(a, rev.ID); c.BuriedUntil == nil || !c.BuriedUntil.Equal(ms(until)) {
		t.Errorf("a shorter burial moved the end to %v", c.BuriedUntil)
	}

	study := func(at time.Time) ([]string, []string, []string) {
		t.Helper()
		l, r, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, ports.StudyQuery{LearnDueBy: at.Add(day), ReviewDueBy: at.Add(day), ReviewLimit: 10, Order: "due", Now: at})
		must(t, err)
		n, err := f.s.Cards().FreshCards(f.ctx, a, d.ID, at, 10)
		must(t, err)
		// FreshCardIDs lists what FreshCards may return, in any order.
		all, err := f.s.Cards().FreshCardIDs(f.ctx, a, d.ID, at)
		must(t, err)
		sameSet(t, all, ids(n), "FreshCardIDs against FreshCards")
		return ids(l), ids(r), ids(n)
	}
	l, r, n := study(now)
	sameIDs(t, l, nil, "StudyCards' learning cards while buried")
	sameIDs(t, r, nil, "StudyCards' review cards while buried")
	sameIDs(t, n, []string{fresh2.ID}, "FreshCards while one is buried")
	all, err := f.s.Cards().NewCards(f.ctx, a, d.ID, 10)
	must(t, err)
	sameIDs(t, ids(all), []string{fresh.ID, fresh2.ID}, "NewCards lists buried new cards")
	_, cram, err := f.s.Cards().StudyCards(f.ctx, a, d.ID, ports.StudyQuery{ReviewLimit: 10, Order: "due", Now: now, Cram: true})
	must(t, err)
	sameSet(t, ids(cram), []string{rev.ID, learn.ID}, "a cram read takes buried cards")
	l, r, n = study(until)
	sameIDs(t, l, []string{learn.ID}, "StudyCards' learning cards once the burial ends")
	sameIDs(t, r, []string{rev.ID}, "StudyCards' review cards once the burial ends")
	sameIDs(t, n, []string{fresh.ID, fresh2.ID}, "FreshCards once the burial ends")
	if got, err := f.s.Cards().FreshCardIDs(f.ctx, b, d.ID, until); err != nil || got == nil || len(got) != 0 {
		t.Errorf("FreshCardIDs of another user's deck: %v, %v; want an empty list", got, err)
	}

	search := func(user, state string, at time.Time) []string {
		t.Helper()
		got, err := f.s.Cards().Search(f.ctx, user, contracts.CardFilter{State: state}, "", 20, at)
		must(t, err)
		return ids(got)
	}
	sameSet(t, search(a, "buried", now), []string{rev.ID, learn.ID, fresh.ID, elsewhere.ID}, "Search buried")
	sameSet(t, search(a, "buried", until), nil, "Search buried once the burial ends")
	sameSet(t, search(a, "leech", now), []string{fresh2.ID}, "Search leech")
	sameSet(t, search(b, "buried", now), nil, "Search buried as another user")
	got2, err := f.s.Cards().Search(f.ctx, a, contracts.CardFilter{Query: "new", State: "buried"}, "", 20, now)
	must(t, err)
	sameIDs(t, ids(got2), []string{fresh.ID}, "Search words and buried")
	_, err = f.s.Cards().Search(f.ctx, a, contracts.CardFilter{State: "sleeping"}, "", 20, now)
	wantKind(t, err, contracts.KindInvalid, "Search with an unknown state")

	// Unbury: one deck, another user's deck, then every deck.
	nb, err := f.s.Cards().Unbury(f.ctx, b, d.ID, now)
	must(t, err)
	if nb != 0 {
		t.Errorf("Unbury of another user's deck unburied %d", nb)
	}
	nd, err := f.s.Cards().Unbury(f.ctx, a, d.ID, now)
	must(t, err)
	if nd != 3 {
		t.Errorf("Unbury of a deck unburied %d, want 3", nd)
	}
	sameSet(t, search(a, "buried", now), []string{elsewhere.ID}, "Search buried after unburying a deck")
	if c := f.get(a, rev.ID); c.BuriedUntil == nil || !c.BuriedUntil.Equal(ms(now)) {
		t.Errorf("an unburied card's burial ends at %v, want now %v", c.BuriedUntil, now)
	}
	l, r, n = study(now)
	if len(l) != 1 || len(r) != 1 || len(n) != 2 {
		t.Errorf("after Unbury the queue reads %v %v %v", l, r, n)
	}
	na, err := f.s.Cards().Unbury(f.ctx, a, "", now)
	must(t, err)
	if na != 1 {
		t.Errorf("Unbury of every deck unburied %d, want 1", na)
	}
	// A burial that ended is no burial: Unbury counts none.
	_, err = f.s.Cards().BuryCards(f.ctx, a, []string{rev.ID}, now)
	must(t, err)
	if n, err := f.s.Cards().Unbury(f.ctx, a, "", now); err != nil || n != 0 {
		t.Errorf("Unbury of a burial ended at now = %d, %v", n, err)
	}
}

// testStudiedSiblings checks StudiedSiblings: the cards of notes with a
// normal review since a time.
func testStudiedSiblings(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Siblings")
	n1, n2, n3 := f.note(contracts.NoteTypeBasicReversed, "eins", "one"), f.note(contracts.NoteTypeBasicReversed, "zwei", "two"), f.note(contracts.NoteTypeBasic, "drei", "three")
	must(t, f.s.Notes().InsertNotes(f.ctx, a, []ports.NoteRow{n1, n2, n3}))
	mk := func(n ports.NoteRow, ord int) ports.CardRow {
		c := f.card(d.ID, n.Fields[0]+itoa(ord), "x")
		c.NoteID, c.Ord = n.ID, ord
		return c
	}
	c10, c11, c20, c21, c30 := mk(n1, 0), mk(n1, 1), mk(n2, 0), mk(n2, 1), mk(n3, 0)
	plain := f.card(d.ID, "plain", "x")
	f.insert(a, c10, c11, c20, c21, c30, plain)
	since := f.now.Add(-6 * time.Hour)
	add := func(user string, c ports.CardRow, at time.Time, kind string) {
		r := f.reviewLog(user, c, "", contracts.RatingGood, at, 0)
		r.Kind = kind
		must(t, f.s.Reviews().AppendReview(f.ctx, r))
	}
	add(a, c10, f.now, ports.ReviewKindReview)
	add(a, c10, f.now.Add(time.Minute), ports.ReviewKindReview) // twice: listed once
	add(a, c11, since, ports.ReviewKindReview)                  // at since: counted
	add(a, c20, since.Add(-time.Millisecond), ports.ReviewKindReview)
	add(a, c21, f.now, ports.ReviewKindCram)
	add(a, c30, f.now, ports.ReviewKindManual)
	add(a, plain, f.now, ports.ReviewKindReview)
	got, err := f.s.Reviews().StudiedSiblings(f.ctx, a, []string{n1.ID, n2.ID, n3.ID, "note-missing"}, since)
	must(t, err)
	if len(got) != 1 {
		t.Errorf("StudiedSiblings = %v, want only note %s", got, n1.ID)
	}
	sameSet(t, got[n1.ID], []string{c10.ID, c11.ID}, "StudiedSiblings of a note studied today")
	if got, err := f.s.Reviews().StudiedSiblings(f.ctx, a, []string{n2.ID}, since.Add(-time.Hour)); err != nil || len(got[n2.ID]) != 1 {
		t.Errorf("StudiedSiblings from earlier = %v, %v", got, err)
	}
	if got, err := f.s.Reviews().StudiedSiblings(f.ctx, b, []string{n1.ID}, since); err != nil || len(got) != 0 {
		t.Errorf("StudiedSiblings as another user = %v, %v", got, err)
	}
	if got, err := f.s.Reviews().StudiedSiblings(f.ctx, a, nil, since); err != nil || len(got) != 0 {
		t.Errorf("StudiedSiblings of no notes = %v, %v", got, err)
	}
}
