package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Interday learning counts against the review limit (issue 27 §7), as in
// Anki's v3 scheduler: the learning steps carried over from an earlier
// learner's day take the review limit's slots before the review cards
// (and so before new cards), sessions, the snapshot and the plan agree,
// the ratings count the next session, and a step set today is outside
// every cap. Injected clock, SQLite and Postgres.
func TestInterdayLearningCountsAgainstReviewLimit(t *testing.T) {
	eachStore(t, testInterdayLearningCountsAgainstReviewLimit)
}

func testInterdayLearningCountsAgainstReviewLimit(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Interday limit")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LearningSteps: []float64{10, 1440},
		NewCardsPerDay: ptr(5), ReviewsPerDay: ptr(100)}); err != nil {
		t.Fatal(err)
	}
	var fronts []contracts.NewCard
	for _, w := range []string{"eins", "zwei", "drei", "vier", "fünf"} {
		fronts = append(fronts, card(w, w))
	}
	e.add(ctx, d.ID, fronts...)
	// Day 1: five new cards rated good go into the one-day step.
	if n := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingGood); n != 5 {
		t.Fatalf("day 1 rated %d, want 5", n)
	}
	// Day 2: a review limit of 3; two more new cards wait.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(3)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC))
	e.add(ctx, d.ID, card("sechs", "six"), card("sieben", "seven"))
	snap, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil || snap.DueToday != 3 || snap.NewToday != 0 {
		t.Errorf("snapshot: due today %d, new %d, %v; want 3 carried-over steps and no new card (the review limit is used)", snap.DueToday, snap.NewToday, err)
	}
	plan, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: 2})
	if err != nil || plan.Forecast[0].Learning != 3 || plan.Forecast[0].New != 0 {
		t.Errorf("plan day 0: %+v, %v; want 3 learning, 0 new", plan.Forecast, err)
	}
	s := e.start(ctx, d.ID, nil, nil)
	if s.Remaining != 3 || s.Current == nil || s.Current.Phase != contracts.PhaseLearning {
		t.Fatalf("day 2 session: %+v; want 3 learning cards", s)
	}
	// Again puts the first back into a 10-minute step: set today, it
	// comes back outside the cap.
	first := s.Current.CardID
	r := e.review(ctx, s.ID, first, contracts.RatingAgain)
	rated := map[string]int{first: 1}
	for cur := r.Next; cur != nil || r.NextCardAt != nil; {
		if cur == nil {
			if !r.NextCardAt.Before(time.Date(2026, 3, 12, 4, 0, 0, 0, time.UTC)) {
				break // a step of the next learner's day
			}
			e.clock.Set(*r.NextCardAt)
			g, err := e.svc.Study.GetSession(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if cur = g.Current; cur == nil {
				break
			}
		}
		if rated[cur.CardID]++; len(rated) > 3 || rated[cur.CardID] > 3 {
			t.Fatalf("the session served %v", rated)
		}
		e.clock.Advance(time.Second)
		r = e.review(ctx, s.ID, cur.CardID, contracts.RatingGood)
		cur = r.Next
	}
	if len(rated) != 3 || rated[first] < 2 {
		t.Errorf("day 2 rated %v; want 3 cards, the first again after its 10-minute step", rated)
	}
	// The three ratings used the limit: another session serves neither
	// the two carried-over steps left nor a new card.
	if s := e.start(ctx, d.ID, nil, nil); s.Current != nil || s.Remaining != 0 {
		t.Errorf("after the limit: %+v; want nothing", s)
	}
	// A higher limit serves them: 3 used of 6 leaves the 2 steps, then 1 new card.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(6)}); err != nil {
		t.Fatal(err)
	}
	s = e.start(ctx, d.ID, nil, nil)
	if s.Remaining != 3 {
		t.Errorf("limit 6 after 3: %d cards; want the 2 carried-over steps and 1 new", s.Remaining)
	}
}
