package domain_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Issue 27: siblings, bury and leeches, with an injected clock on both
// databases.

// notes adds notes to a deck and returns each note's card ids.
func (e *env) notes(ctx context.Context, deckID string, notes ...contracts.NewNote) [][]string {
	e.t.Helper()
	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: deckID, Notes: notes})
	if err != nil {
		e.t.Fatalf("add notes: %v", err)
	}
	var out [][]string
	for _, it := range r.Items {
		if it.Status != contracts.OutcomeCreated {
			e.t.Fatalf("add notes: item %+v", it)
		}
		out = append(out, it.CardIDs)
	}
	return out
}

func reversed(front, back string) contracts.NewNote {
	return contracts.NewNote{NoteType: contracts.NoteTypeBasicReversed, Fields: map[string]string{"Front": front, "Back": back}}
}

func cloze(text string) contracts.NewNote {
	return contracts.NewNote{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": text}}
}

// studyThrough rates every card a session serves with rate(card) until it
// is done, moving the clock to each learning step, and returns the cards
// served in order.
func (e *env) studyThrough(ctx context.Context, s contracts.StudySession, rate func(contracts.StudyCard) contracts.Rating) []string {
	e.t.Helper()
	var served []string
	cur, at := s.Current, s.NextCardAt
	for cur != nil || at != nil {
		if cur == nil {
			e.clock.Set(*at)
			g, err := e.svc.Study.GetSession(ctx, s.ID)
			if err != nil {
				e.t.Fatalf("get session: %v", err)
			}
			cur, at = g.Current, g.NextCardAt
			continue
		}
		served = append(served, cur.CardID)
		e.clock.Advance(5 * time.Second)
		r := e.review(ctx, s.ID, cur.CardID, rate(*cur))
		cur, at = r.Next, r.NextCardAt
	}
	return served
}

func always(r contracts.Rating) func(contracts.StudyCard) contracts.Rating {
	return func(contracts.StudyCard) contracts.Rating { return r }
}

// noteOf maps each card id to its note's index.
func noteOf(notes [][]string) map[string]int {
	m := map[string]int{}
	for i, cs := range notes {
		for _, c := range cs {
			m[c] = i
		}
	}
	return m
}

func TestSiblingsWaitForTheNextDay(t *testing.T) { eachStore(t, testSiblingsWaitForTheNextDay) }

func testSiblingsWaitForTheNextDay(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "German")
	notes := e.notes(ctx, d.ID, reversed("der Hund", "the dog"), cloze("{{c1::Der}} Hund {{c2::bellt}} {{c3::laut}}."), reversed("die Katze", "the cat"))
	of := noteOf(notes)

	// Day 1: one card of each note; a second session the same day has none.
	s1 := e.start(ctx, d.ID, nil, nil)
	if s1.Remaining != 3 {
		t.Fatalf("day 1 queues %d cards, want one per note (3)", s1.Remaining)
	}
	day1 := e.studyThrough(ctx, s1, always(contracts.RatingEasy))
	seen := map[int]bool{}
	for _, c := range day1 {
		if seen[of[c]] {
			t.Fatalf("day 1 served two cards of note %d: %v", of[c], day1)
		}
		seen[of[c]] = true
	}
	if s2 := e.start(ctx, d.ID, nil, nil); s2.Remaining != 0 {
		t.Errorf("a second session of day 1 queues %d cards, want 0 (siblings wait)", s2.Remaining)
	}
	// Day 2: the next sibling of each note (the snapshot's limits used none for the skipped ones).
	e.clock.Advance(24 * time.Hour)
	day2 := e.studyThrough(ctx, e.start(ctx, d.ID, nil, nil), always(contracts.RatingEasy))
	if len(day2) != 3 {
		t.Fatalf("day 2 served %v, want the three siblings", day2)
	}
	for _, c := range day2 {
		if slices.Contains(day1, c) {
			t.Errorf("day 2 served %s again", c)
		}
	}
	e.clock.Advance(24 * time.Hour)
	day3 := e.studyThrough(ctx, e.start(ctx, d.ID, nil, nil), always(contracts.RatingEasy))
	if len(day3) != 1 || of[day3[0]] != 1 {
		t.Errorf("day 3 served %v, want the cloze's third card", day3)
	}

	// Options off: siblings come together.
	d2 := e.deck(ctx, "Together")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d2.ID, BuryNew: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	e.notes(ctx, d2.ID, reversed("das Haus", "the house"))
	if s := e.start(ctx, d2.ID, nil, nil); s.Remaining != 2 {
		t.Errorf("with buryNew off the queue holds %d cards, want both siblings", s.Remaining)
	}
	got, err := e.svc.Decks.GetDeck(ctx, d2.ID)
	if err != nil || *got.Settings.BuryNew || !*got.Settings.BuryReviews || *got.Settings.BuryInterday ||
		got.Settings.LeechThreshold != 8 || got.Settings.LeechAction != "tag" || got.Settings.NewMix != "mix" {
		t.Errorf("deck settings %+v, %v", got.Settings.StudyOptions, err)
	}
}

func TestSiblingBuriedWhenServed(t *testing.T) { eachStore(t, testSiblingBuriedWhenServed) }

func testSiblingBuriedWhenServed(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "German")
	notes := e.notes(ctx, d.ID, reversed("der Hund", "the dog"))
	fwd, rev := notes[0][0], notes[0][1]
	// The forward card becomes a review card; on its due day the reverse
	// card is still new.
	s := e.start(ctx, d.ID, ptr(1), nil)
	if e.studyThrough(ctx, s, always(contracts.RatingEasy)); s.Current.CardID != fwd {
		t.Fatalf("first served %s, want %s", s.Current.CardID, fwd)
	}
	c, _ := e.svc.Cards.GetCard(ctx, fwd)
	e.clock.Set(c.State.Due.Add(time.Hour))
	// Two sessions open at once: A holds the review only, B the new card
	// only (its review limit is 0), so each queue has one card of the note.
	a := e.start(ctx, d.ID, ptr(0), nil)
	b := e.start(ctx, d.ID, nil, ptr(0))
	if a.Remaining != 1 || a.Current.CardID != fwd || b.Remaining != 1 || b.Current.CardID != rev {
		t.Fatalf("sessions A %+v, B %+v", a.Current, b.Current)
	}
	snapBefore, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.review(ctx, a.ID, fwd, contracts.RatingGood)
	// B is about to serve the sibling: it is buried until the next day
	// instead, and uses no new-card slot.
	g, err := e.svc.Study.GetSession(ctx, b.ID)
	if err != nil || !g.Done || g.Current != nil {
		t.Fatalf("session B after A studied the sibling: %+v, %v", g, err)
	}
	buried, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "buried"})
	if err != nil || len(buried.Items) != 1 || buried.Items[0].ID != rev {
		t.Fatalf("search buried = %+v, %v", buried.Items, err)
	}
	if byQuery, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "is:buried dog"}); err != nil || len(byQuery.Items) != 1 {
		t.Errorf("search is:buried dog = %+v, %v", byQuery.Items, err)
	}
	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "is:buried", State: "new"})
	wantKind(t, err, contracts.KindInvalid)
	snap, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil || snap.NewToday != snapBefore.NewToday {
		t.Errorf("new cards left today %d, before %d: a buried card must use no slot (%v)", snap.NewToday, snapBefore.NewToday, err)
	}
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("a later session the same day queues %d cards", s.Remaining)
	}
	// Unburied by the learner, the sibling is served today after all.
	if u, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{DeckID: d.ID}); err != nil || u.Unburied != 1 {
		t.Fatalf("unbury = %+v, %v", u, err)
	}
	if s := e.start(ctx, d.ID, nil, nil); s.Current == nil || s.Current.CardID != rev {
		t.Errorf("after unbury a session serves %+v, want the sibling", s.Current)
	}
	// The next learner's day (rollover 04:00 UTC) it comes back.
	day, _ := e.svc.Settings.Settings(ctx)
	e.clock.Set(day.NextDayAt)
	next := e.start(ctx, d.ID, nil, nil)
	if next.Current == nil || next.Current.CardID != rev {
		t.Errorf("the next day serves %+v, want the buried sibling", next.Current)
	}
	if buried, _ := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "buried"}); len(buried.Items) != 0 {
		t.Errorf("still buried the next day: %+v", buried.Items)
	}
}

func TestBuryAndUnbury(t *testing.T) { eachStore(t, testBuryAndUnbury) }

func testBuryAndUnbury(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, other := e.deck(ctx, "One"), e.deck(ctx, "Two")
	cs := ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2"), card("c", "3")))
	os := ids(e.add(ctx, other.ID, card("x", "1")))
	r, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{cs[0], "nope", cs[0], os[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "updated,not_found,duplicate,updated" {
		t.Errorf("bury statuses %s", got)
	}
	s := e.start(ctx, d.ID, nil, nil)
	if s.Remaining != 2 || s.Current.CardID != cs[1] {
		t.Errorf("session with a buried card: %d cards, current %+v", s.Remaining, s.Current)
	}
	// Buried during a session: skipped when its turn comes.
	if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{cs[2]}}); err != nil {
		t.Fatal(err)
	}
	res := e.review(ctx, s.ID, cs[1], contracts.RatingEasy)
	if !res.Done || res.Next != nil {
		t.Errorf("after burying the last card: %+v", res)
	}
	u, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{DeckID: d.ID})
	if err != nil || u.Unburied != 2 {
		t.Errorf("unbury deck = %+v, %v", u, err)
	}
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 2 {
		t.Errorf("after unbury the session holds %d cards, want 2", s.Remaining)
	}
	if u, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{}); err != nil || u.Unburied != 1 {
		t.Errorf("unbury all = %+v, %v", u, err)
	}
	_, err = e.svc.Study.Unbury(ctx, contracts.UnburyArgs{DeckID: "nope"})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{})
	wantKind(t, err, contracts.KindInvalid)
	// Another user buries none of them.
	bob := e.user("bob@example.com")
	if r, err := e.svc.Study.BuryCards(bob, contracts.BuryCardsArgs{CardIDs: []string{cs[0]}}); err != nil || statuses(r) != "not_found" {
		t.Errorf("another user's bury = %+v, %v", r, err)
	}
}

// TestNextDueSkipsBuried: the snapshot's nextDue is when a card can be
// studied next: a card buried until the next learner's day counts from
// there, not from its own due time later today (issue 27).
func TestNextDueSkipsBuried(t *testing.T) { eachStore(t, testNextDueSkipsBuried) }

func testNextDueSkipsBuried(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "One")
	cs := ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2")))
	s := e.start(ctx, d.ID, nil, nil)
	// Both cards rated: learning steps due minutes from now.
	e.review(ctx, s.ID, s.Current.CardID, contracts.RatingAgain)
	e.review(ctx, s.ID, cs[1-slices.Index(cs, s.Current.CardID)], contracts.RatingAgain)
	snap, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.NextDue == nil || !snap.NextDue.After(e.clock.Now()) || snap.NextDue.After(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("before burying, nextDue %v, want a learning step within the hour of %v", snap.NextDue, e.clock.Now())
	}
	first := *snap.NextDue
	if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: cs}); err != nil {
		t.Fatal(err)
	}
	if snap, err = e.svc.Study.Snapshot(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if snap.NextDue == nil || !snap.NextDue.After(first.Add(time.Hour)) {
		t.Fatalf("with both cards buried, nextDue %v names a buried card's step (%v)", snap.NextDue, first)
	}
	// At that moment the burial is over and the cards are served.
	e.clock.Set(*snap.NextDue)
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 2 {
		t.Errorf("at nextDue %v a session holds %d cards, want 2", *snap.NextDue, s.Remaining)
	}
}

func TestLeeches(t *testing.T) { eachStore(t, testLeeches) }

func testLeeches(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Hard")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LeechThreshold: ptr(2), BuryReviews: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	notes := e.notes(ctx, d.ID, reversed("schwer", "hard"))
	c := notes[0][0]
	var lapses []bool
	lapse := func() contracts.ReviewResult {
		t.Helper()
		card, _ := e.svc.Cards.GetCard(ctx, c)
		e.clock.Set(card.State.Due.Add(time.Hour))
		s := e.start(ctx, d.ID, ptr(0), nil)
		if s.Current == nil || s.Current.CardID != c {
			t.Fatalf("the hard card is not served: %+v", s.Current)
		}
		r := e.review(ctx, s.ID, c, contracts.RatingAgain)
		lapses = append(lapses, r.Leech)
		if r.Next != nil && r.Next.CardID == c {
			e.studyThrough(ctx, contracts.StudySession{ID: s.ID, Current: r.Next, NextCardAt: r.NextCardAt}, always(contracts.RatingGood))
		} else if r.NextCardAt != nil {
			e.studyThrough(ctx, contracts.StudySession{ID: s.ID, NextCardAt: r.NextCardAt}, always(contracts.RatingGood))
		}
		return r
	}
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(1), nil), always(contracts.RatingEasy))
	for range 4 {
		lapse()
	}
	// Threshold 2: a leech at 2 lapses, then every half (1) after.
	if !slices.Equal(lapses, []bool{false, true, true, true}) {
		t.Errorf("leech flags by lapse %v, want false true true true", lapses)
	}
	found, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "leech"})
	if err != nil || len(found.Items) != 2 {
		t.Fatalf("search leech = %d cards, %v; want both cards of the note", len(found.Items), err)
	}
	for _, it := range found.Items {
		if it.Suspended || !slices.Contains(it.Tags, contracts.LeechTag) {
			t.Errorf("tag action: card %+v", it)
		}
	}
	n, err := e.svc.Notes.GetNote(ctx, mustNoteOf(t, e, ctx, c))
	if err != nil || !slices.Contains(n.Tags, contracts.LeechTag) {
		t.Errorf("note tags %v, %v", n.Tags, err)
	}
	// Suspend action: the card is suspended and not studied again.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LeechAction: "suspend"}); err != nil {
		t.Fatal(err)
	}
	r := lapse()
	if !r.Leech || r.Next != nil || r.NextCardAt != nil {
		t.Errorf("suspending leech result %+v", r)
	}
	if card, _ := e.svc.Cards.GetCard(ctx, c); !card.Suspended {
		t.Errorf("the leech is not suspended")
	}
	_, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LeechAction: "delete"})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LeechThreshold: ptr(0)})
	wantKind(t, err, contracts.KindInvalid)
}

func mustNoteOf(t *testing.T, e *env, ctx context.Context, cardID string) string {
	t.Helper()
	c, err := e.svc.Cards.GetCard(ctx, cardID)
	if err != nil || c.NoteID == "" {
		t.Fatalf("card %s: %+v, %v", cardID, c, err)
	}
	return c.NoteID
}

func TestNewMixAndTiebreak(t *testing.T) { eachStore(t, testNewMixAndTiebreak) }

func testNewMixAndTiebreak(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Mix")
	var cards []contracts.NewCard
	for i := range 10 {
		cards = append(cards, card(fmt.Sprintf("q%d", i), "a"))
	}
	cs := ids(e.add(ctx, d.ID, cards...))
	// Eight become review cards all due the same day (ties); two stay new.
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(8), nil), always(contracts.RatingEasy))
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: cs[:8], DueDate: "2026-03-20"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC))
	order := func() ([]string, string) {
		t.Helper()
		s := e.start(ctx, d.ID, nil, nil)
		var reviews []string
		phases := ""
		// Walk the queue without rating: bury each card after seeing it.
		for cur := s.Current; cur != nil; {
			phases += string(cur.Phase[0])
			if cur.Phase == contracts.PhaseReview {
				reviews = append(reviews, cur.CardID)
			}
			if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{cur.CardID}}); err != nil {
				t.Fatal(err)
			}
			g, err := e.svc.Study.GetSession(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			cur = g.Current
		}
		if _, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{}); err != nil {
			t.Fatal(err)
		}
		return reviews, phases
	}
	r1, p1 := order()
	// Mix: two new cards spread through eight reviews.
	if p1 != "rrnrrrnrrr" {
		t.Errorf("mixed order %s, want the new cards a third and two thirds through", p1)
	}
	// The same day, the same order; equal due times are not in id order.
	r2, _ := order()
	if !slices.Equal(r1, r2) {
		t.Errorf("two sessions of one day order the ties %v and %v", r1, r2)
	}
	if slices.IsSorted(r1) {
		t.Errorf("ties in id order %v", r1)
	}
	// The next day, another order.
	e.clock.Advance(24 * time.Hour)
	if r3, _ := order(); slices.Equal(r1, r3) {
		t.Errorf("the next day orders the ties as the day before: %v", r3)
	}
	for mode, want := range map[string]string{contracts.NewMixFirst: "nnrrrrrrrr", contracts.NewMixLast: "rrrrrrrrnn"} {
		if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewMix: mode}); err != nil {
			t.Fatal(err)
		}
		if _, p := order(); p != want {
			t.Errorf("newMix %s: order %s, want %s", mode, p, want)
		}
	}
}
