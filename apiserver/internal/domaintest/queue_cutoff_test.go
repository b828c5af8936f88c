package domain_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Issue 27: the snapshot is the session's queue, and the review limit
// takes the same cards all day, with an injected clock on both
// databases.

// queued walks a new session's queue without rating (each card seen is
// buried, then all are unburied) and returns its cards in order.
func (e *env) queued(ctx context.Context, deckID string) []string {
	e.t.Helper()
	s := e.start(ctx, deckID, nil, nil)
	var out []string
	for cur := s.Current; cur != nil; {
		out = append(out, cur.CardID)
		if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{cur.CardID}}); err != nil {
			e.t.Fatal(err)
		}
		g, err := e.svc.Study.GetSession(ctx, s.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		cur = g.Current
	}
	if _, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{}); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func TestSnapshotIsTheQueue(t *testing.T) { eachStore(t, testSnapshotIsTheQueue) }

func testSnapshotIsTheQueue(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Snapshot")
	notes := e.notes(ctx, d.ID, reversed("sun", "Sonne"), reversed("moon", "Mond"), reversed("star", "Stern"), reversed("sky", "Himmel"))
	note := noteOf(notes)
	snap := func(step string) contracts.StudySnapshot {
		t.Helper()
		s, err := e.svc.Study.Snapshot(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, c := range s.Preview {
			if seen[note[c.CardID]] {
				t.Errorf("%s: the preview shows two cards of one note: %+v", step, s.Preview)
			}
			seen[note[c.CardID]] = true
		}
		return s
	}
	// Eight new cards of four notes: siblings wait, so four today.
	if s := snap("fresh"); s.NewToday != 4 || s.NewAvailable != 8 || len(s.Preview) != 4 || s.DueNow != 0 {
		t.Fatalf("fresh deck of four reversed notes: %+v; want 4 new today (one card a note)", s)
	}
	// A buried card is not offered; its sibling takes its place.
	if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{notes[0][0]}}); err != nil {
		t.Fatal(err)
	}
	s := snap("one buried")
	if s.NewToday != 4 || slices.ContainsFunc(s.Preview, func(c contracts.StudyCard) bool { return c.CardID == notes[0][0] }) {
		t.Errorf("with a buried card: %+v", s)
	}
	if _, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{}); err != nil {
		t.Fatal(err)
	}

	// Study two notes' first cards to review (easy): their siblings are
	// buried today, and the snapshot says so.
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(2), nil), always(contracts.RatingEasy))
	s = snap("two studied")
	served := e.queued(ctx, d.ID)
	if s.NewToday != 2 || len(served) != 2 || len(s.Preview) != 2 || s.Preview[0].CardID != served[0] || s.Preview[1].CardID != served[1] {
		t.Errorf("after studying two notes: snapshot %+v; a session serves %v", s, served)
	}

	// Days later the two review cards are due; burying one takes it out of
	// dueNow, as it is out of the session.
	e.clock.Advance(60 * 24 * time.Hour)
	s = snap("reviews due")
	served = e.queued(ctx, d.ID)
	if s.DueNow != 2 || s.Overdue != 2 || s.DueNow+s.NewToday != len(served) {
		t.Errorf("reviews due: snapshot %+v; a session serves %d cards", s, len(served))
	}
	var review string
	for _, c := range s.Preview {
		if c.Phase == contracts.PhaseReview {
			review = c.CardID
		}
	}
	if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: []string{review}}); err != nil {
		t.Fatal(err)
	}
	if s = snap("a review buried"); s.DueNow != 1 || s.Overdue != 1 {
		t.Errorf("a due review buried: %+v; want dueNow 1", s)
	}
	// Its sibling, new, is no longer buried by it: the snapshot offers it.
	if s.NewToday != 3 {
		t.Errorf("a due review buried: newToday %d, want 3 (its new sibling is free today)", s.NewToday)
	}
}

func TestReviewLimitTakesTheDaysCards(t *testing.T) { eachStore(t, testReviewLimitTakesTheDaysCards) }

func testReviewLimitTakesTheDaysCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Cutoff")
	var cards []contracts.NewCard
	for i := range 12 {
		cards = append(cards, card(fmt.Sprintf("q%02d", i), "a"))
	}
	cs := ids(e.add(ctx, d.ID, cards...))
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(12), nil), always(contracts.RatingEasy))
	// Twelve review cards due the same day (equal due times), four a day.
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: cs, DueDate: "2026-04-20"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(4)}); err != nil {
		t.Fatal(err)
	}
	setOrder := func(order string) {
		t.Helper()
		if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewOrder: order}); err != nil {
			t.Fatal(err)
		}
	}
	sorted := func(ids []string) []string { ids = slices.Clone(ids); slices.Sort(ids); return ids }
	lowest := sorted(cs)[:4]
	byID := 0
	e.clock.Set(time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC))
	var days [][]string
	for day := range 3 {
		setOrder(contracts.ReviewOrderDue)
		first := e.queued(ctx, d.ID)
		if len(first) != 4 {
			t.Fatalf("day %d: the session serves %d cards, want the limit's 4", day, len(first))
		}
		e.clock.Advance(time.Hour)
		if again := e.queued(ctx, d.ID); !slices.Equal(again, first) {
			t.Errorf("day %d: two sessions take %v and %v", day, first, again)
		}
		// Random order shuffles the same four cards.
		setOrder(contracts.ReviewOrderRandom)
		for i := range 3 {
			if r := e.queued(ctx, d.ID); !slices.Equal(sorted(r), sorted(first)) {
				t.Errorf("day %d: random-order session %d takes %v, due order %v", day, i, r, first)
			}
		}
		p, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.Forecast[0].Due != 4 {
			t.Errorf("day %d: the plan's day 0 says %d reviews, want 4", day, p.Forecast[0].Due)
		}
		if slices.Equal(sorted(first), lowest) {
			byID++
		}
		days = append(days, sorted(first))
		e.clock.Advance(24 * time.Hour)
	}
	if byID == len(days) {
		t.Errorf("the limit took the lowest ids every day: %v", days)
	}
	if slices.Equal(days[0], days[1]) && slices.Equal(days[1], days[2]) {
		t.Errorf("three days took the same ties: %v", days)
	}
}

// Interday learning steps (issue 27 §7): with a one-day learning step a
// card rated good stays in learning, no session serves it again the same
// learner's day, and the next day's session serves it as a learning card
// from the day's start; the step after it graduates it.
func TestInterdayLearningStep(t *testing.T) { eachStore(t, testInterdayLearningStep) }

func testInterdayLearningStep(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Interday")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LearningSteps: []float64{10, 1440}}); err != nil {
		t.Fatalf("a one-day learning step: %v", err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LearningSteps: []float64{10, 30*1440 + 1}}); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("a step over 30 days: %v; want invalid", err)
	}
	cs := ids(e.add(ctx, d.ID, card("Haus", "house")))
	s := e.start(ctx, d.ID, nil, nil)
	r := e.review(ctx, s.ID, cs[0], contracts.RatingGood) // a new card's good: the second step, one day
	c, err := e.svc.Cards.GetCard(ctx, cs[0])
	if err != nil {
		t.Fatal(err)
	}
	tomorrow := time.Date(2026, 3, 11, 4, 0, 0, 0, time.UTC) // the rollover at 04:00 of the next day (UTC account)
	if c.State.Phase != contracts.PhaseLearning || !c.State.Due.Equal(tomorrow) {
		t.Fatalf("after good into the one-day step: %+v; want learning due %v", c.State, tomorrow)
	}
	if r.Next != nil || r.NextCardAt != nil && r.NextCardAt.Before(tomorrow) {
		t.Errorf("the session serves the card again today: %+v", r)
	}
	e.clock.Advance(2 * time.Hour)
	if s := e.start(ctx, d.ID, nil, nil); s.Current != nil || s.Remaining != 0 {
		t.Errorf("a second session the same day: %+v; want nothing", s)
	}
	if snap, err := e.svc.Study.Snapshot(ctx, d.ID); err != nil || snap.DueNow != 0 {
		t.Errorf("snapshot the same day: %+v, %v; want nothing due", snap, err)
	}
	e.clock.Set(tomorrow.Add(5 * time.Hour))
	snap, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil || snap.DueNow != 1 || len(snap.Preview) != 1 || snap.Preview[0].Phase != contracts.PhaseLearning {
		t.Errorf("snapshot the next day: %+v, %v; want the learning card due", snap, err)
	}
	s = e.start(ctx, d.ID, nil, nil)
	if s.Current == nil || s.Current.CardID != cs[0] || s.Current.Phase != contracts.PhaseLearning {
		t.Fatalf("the next day's session: %+v; want the learning card", s)
	}
	e.review(ctx, s.ID, cs[0], contracts.RatingGood)
	if c, err = e.svc.Cards.GetCard(ctx, cs[0]); err != nil || c.State.Phase != contracts.PhaseReview || c.State.ScheduledDays < 1 {
		t.Errorf("good after the last step: %+v, %v; want a review card", c.State, err)
	}
}
