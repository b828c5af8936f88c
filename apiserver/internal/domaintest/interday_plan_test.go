package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// The study plan's later days count interday learning against the review
// limit, as sessions do (issue 27 §7): 20 cards in one-day learning steps
// (six of them, so none graduates within the week studied with good),
// 10 new cards waiting, a review limit of 5. Every day sessions serve 5
// carried-over steps and neither a review card nor a new card (the limit
// is used), and every day of the plan made on the first day says the
// same; it used to simulate every step as outside the limits (all 20 the
// next day, and new cards). Injected clock, SQLite and Postgres.
func TestInterdayPlanEqualsSessions(t *testing.T) {
	eachStore(t, testInterdayPlanEqualsSessions)
}

func testInterdayPlanEqualsSessions(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Interday plan", NewCardsPerDay: ptr(20), ReviewsPerDay: ptr(100)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID,
		LearningSteps: []float64{1440, 1440, 1440, 1440, 1440, 1440}}); err != nil {
		t.Fatal(err)
	}
	e.add(ctx, d.ID, manyCards("step", 20)...)
	if n := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingGood); n != 20 {
		t.Fatalf("the first day rated %d cards, want 20", n)
	}
	e.add(ctx, d.ID, manyCards("waiting", 10)...)
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewCardsPerDay: ptr(10), ReviewsPerDay: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	const days = 7
	start := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	e.clock.Set(start)
	plan, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: days})
	if err != nil {
		t.Fatal(err)
	}
	for i := range days {
		e.clock.Set(start.AddDate(0, 0, i))
		var got contracts.DueDay
		s := e.start(ctx, d.ID, nil, nil)
		for cur := s.Current; cur != nil; {
			switch cur.Phase {
			case contracts.PhaseNew:
				got.New++
			case contracts.PhaseReview:
				got.Due++
			default:
				got.Learning++
			}
			if got.New+got.Due+got.Learning > 50 {
				t.Fatal("the session never ends")
			}
			e.clock.Advance(time.Second)
			cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingGood).Next
		}
		want := plan.Forecast[i]
		if got.Learning != 5 || got.Due != 0 || got.New != 0 {
			t.Errorf("day %d: sessions served %d steps, %d reviews, %d new; want 5 steps only", i, got.Learning, got.Due, got.New)
		}
		if got.Learning != want.Learning || got.Due != want.Due || got.New != want.New {
			t.Errorf("day %d: the plan says %d steps, %d reviews, %d new; sessions served %d, %d, %d",
				i, want.Learning, want.Due, want.New, got.Learning, got.Due, got.New)
		}
	}
}
