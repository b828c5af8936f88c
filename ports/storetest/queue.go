package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testDueCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "Due"), f.deck(a, "Elsewhere")
	mid := f.reviewCard(d.ID, "overdue a day", f.now.Add(-day))
	most := f.reviewCard(d.ID, "overdue a week", f.now.Add(-7*day))
	least := f.reviewCard(d.ID, "due exactly now", f.now)
	learning := f.reviewCard(d.ID, "learning, overdue an hour", f.now.Add(-time.Hour))
	learning.State.Phase = contracts.PhaseLearning
	future := f.reviewCard(d.ID, "due tomorrow", f.now.Add(day))
	susp := f.reviewCard(d.ID, "suspended, overdue", f.now.Add(-30*day))
	susp.Suspended = true
	fresh := f.card(d.ID, "new, due field in the past", "x")
	fresh.State.Due = f.now.Add(-30 * day)
	other := f.reviewCard(e.ID, "other deck", f.now.Add(-30*day))
	f.insert(a, mid, most, least, learning, future, susp, fresh, other)
	bd := f.deck(b, "Theirs")
	f.insert(b, f.reviewCard(bd.ID, "theirs", f.now.Add(-30*day)))

	got, err := f.s.Cards().DueCards(f.ctx, a, d.ID, f.now, 10)
	must(t, err)
	sameIDs(t, ids(got), []string{most.ID, mid.ID, learning.ID, least.ID}, "DueCards, most overdue first")
	if len(got) > 0 {
		sameCard(t, got[0], withVersion(most, 1), "DueCards returns whole cards")
	}
	got, err = f.s.Cards().DueCards(f.ctx, a, d.ID, f.now, 2)
	must(t, err)
	sameIDs(t, ids(got), []string{most.ID, mid.ID}, "DueCards with a limit")
	got, err = f.s.Cards().DueCards(f.ctx, b, d.ID, f.now, 10)
	must(t, err)
	sameIDs(t, ids(got), nil, "DueCards of another user's deck")
}

func testNextDueAt(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "Next"), f.deck(a, "Empty")
	_, ok, err := f.s.Cards().NextDueAt(f.ctx, a, e.ID, f.now)
	must(t, err)
	if ok {
		t.Error("NextDueAt of a deck without cards says ok")
	}
	soon := f.reviewCard(d.ID, "due in an hour, buried a day", f.now.Add(time.Hour))
	later := f.reviewCard(d.ID, "due in two hours", f.now.Add(2*time.Hour))
	susp := f.reviewCard(d.ID, "suspended, due now", f.now)
	susp.Suspended = true
	fresh := f.card(d.ID, "new", "x")
	f.insert(a, soon, later, susp, fresh)
	bd := f.deck(b, "Theirs")
	f.insert(b, f.reviewCard(bd.ID, "theirs", f.now.Add(-day)))
	next := func(want time.Time, what string) {
		t.Helper()
		got, ok, err := f.s.Cards().NextDueAt(f.ctx, a, d.ID, f.now)
		must(t, err)
		if !ok || !got.Equal(want) {
			t.Errorf("NextDueAt %s: %v (ok %v), want %v", what, got, ok, want)
		}
	}
	next(soon.State.Due, "before any burial: the earliest due, not the suspended or new card")
	_, err = f.s.Cards().BuryCards(f.ctx, a, []string{soon.ID}, f.now.Add(day))
	must(t, err)
	next(later.State.Due, "with the earliest buried past the next")
	_, err = f.s.Cards().BuryCards(f.ctx, a, []string{later.ID}, f.now.Add(day))
	must(t, err)
	next(f.now.Add(day), "with both buried: the end of the burial")
	_, ok, err = f.s.Cards().NextDueAt(f.ctx, b, d.ID, f.now)
	must(t, err)
	if ok {
		t.Error("NextDueAt of another user's deck says ok")
	}
}

// withVersion returns c with a version.
func withVersion(c ports.CardRow, v int64) ports.CardRow {
	c.Version = v
	return c
}

func testNewCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "New")
	var want []string
	var cards []ports.CardRow
	for i := range 5 {
		c := f.card(d.ID, "new "+itoa(i), "x")
		c.CreatedAt = f.now.Add(time.Duration(5-i) * time.Minute) // created in reverse id order
		cards = append(cards, c)
	}
	for i := 4; i >= 0; i-- {
		want = append(want, cards[i].ID)
	}
	susp := f.card(d.ID, "suspended new", "x")
	susp.Suspended, susp.CreatedAt = true, f.now.Add(-time.Hour)
	rev := f.reviewCard(d.ID, "review", f.now.Add(-day))
	rev.CreatedAt = f.now.Add(-time.Hour)
	f.insert(a, append(cards, susp, rev)...)

	got, err := f.s.Cards().NewCards(f.ctx, a, d.ID, 10)
	must(t, err)
	sameIDs(t, ids(got), want, "NewCards, oldest first")
	got, err = f.s.Cards().NewCards(f.ctx, a, d.ID, 3)
	must(t, err)
	sameIDs(t, ids(got), want[:3], "NewCards with a limit")
	got, err = f.s.Cards().NewCards(f.ctx, b, d.ID, 10)
	must(t, err)
	sameIDs(t, ids(got), nil, "NewCards of another user's deck")
}

func testCountPhasesAndDue(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "D"), f.deck(a, "E")
	suspRev := f.reviewCard(d.ID, "suspended review", f.now.Add(-day))
	suspRev.Suspended = true
	suspNew := f.card(d.ID, "suspended new", "x")
	suspNew.Suspended = true
	learn := f.reviewCard(d.ID, "learning", f.now.Add(-time.Minute))
	learn.State.Phase = contracts.PhaseLearning
	relearn := f.reviewCard(e.ID, "relearning", f.now.Add(time.Minute))
	relearn.State.Phase = contracts.PhaseRelearning
	f.insert(a, f.card(d.ID, "new 1", "x"), f.card(d.ID, "new 2", "x"), f.card(e.ID, "new 3", "x"),
		f.reviewCard(d.ID, "review due", f.now.Add(-day)), f.reviewCard(e.ID, "review due", f.now),
		f.reviewCard(e.ID, "review later", f.now.Add(day)), suspRev, suspNew, learn, relearn)
	bd := f.deck(b, "D")
	f.insert(b, f.card(bd.ID, "theirs", "x"), f.reviewCard(bd.ID, "theirs due", f.now.Add(-day)))

	check := func(deckID string, want contracts.PhaseCounts) {
		t.Helper()
		got, err := f.s.Cards().CountPhases(f.ctx, a, deckID)
		must(t, err)
		if got != want {
			t.Errorf("CountPhases(%q) = %+v, want %+v", deckID, got, want)
		}
	}
	check(d.ID, contracts.PhaseCounts{New: 2, Learning: 1, Review: 1, Suspended: 2})
	check(e.ID, contracts.PhaseCounts{New: 1, Review: 2, Relearning: 1})
	check("", contracts.PhaseCounts{New: 3, Learning: 1, Review: 3, Relearning: 1, Suspended: 2})
	if got, err := f.s.Cards().CountPhases(f.ctx, b, d.ID); err != nil || got != (contracts.PhaseCounts{}) {
		t.Errorf("CountPhases of another user's deck = %+v, %v; want zero", got, err)
	}
	// ScheduledStates: the unsuspended cards that are not new, with their states.
	states := func(deckID string) map[contracts.Phase]int {
		t.Helper()
		got, err := f.s.Cards().ScheduledStates(f.ctx, a, deckID)
		must(t, err)
		out := map[contracts.Phase]int{}
		for _, st := range got {
			out[st.Phase]++
			if st.Phase == contracts.PhaseReview && (st.LastReview == nil || st.Stability == 0 || st.Due.IsZero()) {
				t.Errorf("ScheduledStates(%q) gave a review card without its state: %+v", deckID, st)
			}
		}
		return out
	}
	if got := states(d.ID); len(got) != 2 || got[contracts.PhaseLearning] != 1 || got[contracts.PhaseReview] != 1 {
		t.Errorf("ScheduledStates(D) phases = %v; want 1 learning, 1 review", got)
	}
	if got := states(""); got[contracts.PhaseReview] != 3 || got[contracts.PhaseRelearning] != 1 || got[contracts.PhaseLearning] != 1 || got[contracts.PhaseNew] != 0 {
		t.Errorf("ScheduledStates(all) phases = %v", got)
	}
	if got, err := f.s.Cards().ScheduledStates(f.ctx, b, d.ID); err != nil || len(got) != 0 {
		t.Errorf("ScheduledStates of another user's deck = %+v, %v; want none", got, err)
	}
	// ScheduledStatesByDeck: the same states, each deck's apart.
	byDeck, err := f.s.Cards().ScheduledStatesByDeck(f.ctx, a)
	must(t, err)
	for _, deckID := range []string{d.ID, e.ID} {
		want, err := f.s.Cards().ScheduledStates(f.ctx, a, deckID)
		must(t, err)
		if !slices.EqualFunc(byDeck[deckID], want, func(x, y contracts.CardState) bool {
			return x.Phase == y.Phase && x.Due.Equal(y.Due) && x.Stability == y.Stability
		}) {
			t.Errorf("ScheduledStatesByDeck[%s] = %+v, want %+v", deckID, byDeck[deckID], want)
		}
	}
	if len(byDeck) != 2 {
		t.Errorf("ScheduledStatesByDeck has %d decks, want 2", len(byDeck))
	}
	if other, err := f.s.Cards().ScheduledStatesByDeck(f.ctx, b); err != nil || len(other[d.ID]) != 0 {
		t.Errorf("ScheduledStatesByDeck of another user holds %d of A's states, %v", len(other[d.ID]), err)
	}

	due := func(deckID string, at time.Time, want int) {
		t.Helper()
		got, err := f.s.Cards().CountDue(f.ctx, a, deckID, at)
		must(t, err)
		if got != want {
			t.Errorf("CountDue(%q, %v) = %d, want %d", deckID, at, got, want)
		}
	}
	due(d.ID, f.now, 2)
	due(e.ID, f.now, 1)
	due("", f.now, 3)
	due("", f.now.Add(time.Minute), 4)
	due("", f.now.Add(2*day), 5)
	due("", f.now.Add(-2*day), 0)
}

func testDueHistogram(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "Forecast"), f.deck(a, "Other")
	start := f.now.Add(-5 * time.Hour) // buckets need not start at midnight
	at := func(offset time.Duration, name string) ports.CardRow {
		return f.reviewCard(d.ID, name, start.Add(offset))
	}
	newCard := f.card(d.ID, "new", "x")
	newCard.State.Due = start.Add(day)
	susp := at(day, "suspended")
	susp.Suspended = true
	f.insert(a,
		at(-30*day, "long overdue"), at(-time.Millisecond, "just overdue"), at(0, "at start"), at(day-time.Millisecond, "end of day 0"),
		at(day, "start of day 1"), at(2*day+5*time.Hour, "day 2"), at(3*day, "beyond"), at(40*day, "far beyond"),
		newCard, susp, f.reviewCard(e.ID, "other deck", start.Add(day)))
	bd := f.deck(b, "Theirs")
	f.insert(b, f.reviewCard(bd.ID, "theirs", start))

	got, err := f.s.Cards().DueHistogram(f.ctx, a, d.ID, start, 3)
	must(t, err)
	if want := []int{4, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("DueHistogram(deck, 3 days) = %v, want %v", got, want)
	}
	got, err = f.s.Cards().DueHistogram(f.ctx, a, "", start, 5)
	must(t, err)
	if want := []int{4, 2, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("DueHistogram(all decks, 5 days) = %v, want %v", got, want)
	}
	got, err = f.s.Cards().DueHistogram(f.ctx, a, d.ID, start, 1)
	must(t, err)
	if want := []int{4}; !slices.Equal(got, want) {
		t.Errorf("DueHistogram(deck, 1 day) = %v, want %v", got, want)
	}
	got, err = f.s.Cards().DueHistogram(f.ctx, b, d.ID, start, 2)
	must(t, err)
	if want := []int{0, 0}; !slices.Equal(got, want) {
		t.Errorf("DueHistogram of another user's deck = %v, want %v", got, want)
	}
}

// testDeckTree covers the reads of a deck tree (issue 27 §4): DeckTree
// gives the deck first and the decks below it (not a deck whose name only
// starts the same, not another user's); FreshCardsIn and StudyCards with
// DeckIDs bound each deck's cards apart; CountPhasesIn adds decks up.
func testDeckTree(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	p, c1, g, c2 := f.deck(a, "P"), f.deck(a, "P::C1"), f.deck(a, "P::C1::G"), f.deck(a, "P::C2")
	f.deck(a, "PX")
	f.deck(a, "Q::P")
	f.deck(b, "P::C1")
	tree, err := f.s.Decks().DeckTree(f.ctx, a, p.ID)
	must(t, err)
	var names []string
	for _, d := range tree {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"P", "P::C1", "P::C1::G", "P::C2"}) {
		t.Errorf("DeckTree of P: %v; want P, then P::C1, P::C1::G, P::C2", names)
	}
	tree, err = f.s.Decks().DeckTree(f.ctx, a, g.ID)
	must(t, err)
	if len(tree) != 1 || tree[0].ID != g.ID {
		t.Errorf("DeckTree of a leaf: %v", tree)
	}
	if _, err := f.s.Decks().DeckTree(f.ctx, b, p.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("DeckTree of another user's deck: %v; want not found", err)
	}
	var cards []ports.CardRow
	for i := range 4 {
		for _, d := range []contracts.Deck{p, c1, c2} {
			c := f.card(d.ID, d.Name+" new "+itoa(i), "x")
			c.CreatedAt = f.now.Add(time.Duration(i) * time.Minute)
			r := f.reviewCard(d.ID, d.Name+" review "+itoa(i), f.now.Add(-time.Duration(i+1)*time.Hour))
			cards = append(cards, c, r)
		}
	}
	f.insert(a, cards...)
	in := []string{p.ID, c1.ID, c2.ID}
	fresh, err := f.s.Cards().FreshCardsIn(f.ctx, a, in, f.now, 2)
	must(t, err)
	perDeck := map[string]int{}
	for _, c := range fresh {
		perDeck[c.DeckID]++
		if c.State.Phase != contracts.PhaseNew || c.CreatedAt.After(f.now.Add(time.Minute)) {
			t.Errorf("FreshCardsIn gave %q; want each deck's 2 oldest new cards", c.Front)
		}
	}
	if len(fresh) != 6 || perDeck[p.ID] != 2 || perDeck[c1.ID] != 2 || perDeck[c2.ID] != 2 {
		t.Errorf("FreshCardsIn, 2 a deck: %v", perDeck)
	}
	byCard, err := f.s.Cards().FreshCardDecks(f.ctx, a, []string{c1.ID, c2.ID}, f.now)
	must(t, err)
	clear(perDeck)
	for _, d := range byCard {
		perDeck[d]++
	}
	if len(byCard) != 8 || perDeck[c1.ID] != 4 || perDeck[c2.ID] != 4 {
		t.Errorf("FreshCardDecks of two decks: %v; want each deck's 4 new cards", perDeck)
	}
	if got, err := f.s.Cards().FreshCardDecks(f.ctx, b, []string{c1.ID}, f.now); err != nil || len(got) != 0 {
		t.Errorf("FreshCardDecks of another user's deck: %v, %v; want none", got, err)
	}
	_, review, err := f.s.Cards().StudyCards(f.ctx, a, p.ID, ports.StudyQuery{LearnDueBy: f.now, ReviewDueBy: f.now, ReviewLimit: 3, Order: "due", Now: f.now, DeckIDs: in})
	must(t, err)
	clear(perDeck)
	for i, c := range review {
		perDeck[c.DeckID]++
		if i > 0 && c.State.Due.Before(review[i-1].State.Due) {
			t.Errorf("StudyCards with DeckIDs out of due order at %d", i)
		}
	}
	if len(review) != 9 || perDeck[p.ID] != 3 || perDeck[c1.ID] != 3 || perDeck[c2.ID] != 3 {
		t.Errorf("StudyCards with DeckIDs, 3 a deck: %v", perDeck)
	}
	pc, err := f.s.Cards().CountPhasesIn(f.ctx, a, []string{c1.ID, c2.ID})
	must(t, err)
	if pc.New != 8 || pc.Review != 8 {
		t.Errorf("CountPhasesIn of two decks: %+v; want 8 new, 8 review", pc)
	}
	if at, ok, err := f.s.Cards().NextDueAtIn(f.ctx, a, []string{c1.ID, c2.ID}, f.now); err != nil || !ok || !at.Equal(f.now.Add(-4*time.Hour)) {
		t.Errorf("NextDueAtIn: %v %v %v; want the earliest due of both decks", at, ok, err)
	}
}
