package domain_test

import (
	"math"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// The study plan of every deck simulates each deck under its own preset
// and limits and sums them: with a budget every deck fits in, its new
// cards a day are the decks' own limits added up, and each day's forecast
// is the two decks' forecasts added up (each rounded, so within one).
func TestPlanOfAllDecksSumsTheDecks(t *testing.T) { eachStore(t, testPlanOfAllDecksSumsTheDecks) }

func testPlanOfAllDecksSumsTheDecks(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	daily, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Daily", NewCardsPerDay: ptr(3), MaximumIntervalDays: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: daily.ID, LearningSteps: []float64{5}}); err != nil {
		t.Fatal(err)
	}
	loose, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Loose", NewCardsPerDay: ptr(7), DesiredRetention: ptr(0.75)})
	if err != nil {
		t.Fatal(err)
	}
	weights := append([]float64{}, contracts.DefaultWeights...)
	weights[0], weights[1], weights[2] = 0.5, 2, 5
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: loose.ID, Weights: weights}); err != nil {
		t.Fatal(err)
	}
	// A few days of study in each deck, so both have scheduled cards.
	for _, d := range []contracts.Deck{daily, loose} {
		e.add(ctx, d.ID, manyCards(d.Name, 60)...)
	}
	for day := range 4 {
		e.clock.Set(t0.Add(time.Duration(day) * 24 * time.Hour))
		for _, d := range []contracts.Deck{daily, loose} {
			e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingGood)
		}
	}
	plan := func(deckID string) contracts.StudyPlan {
		t.Helper()
		p, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: deckID, Days: 14, MinutesPerDay: 600})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, all := plan(daily.ID), plan(loose.ID), plan("")
	if a.NewCardsPerDay != 3 || b.NewCardsPerDay != 7 || all.NewCardsPerDay != 10 {
		t.Errorf("new cards a day: %d and %d per deck, %d for all; want 3, 7 and 10", a.NewCardsPerDay, b.NewCardsPerDay, all.NewCardsPerDay)
	}
	if all.NewCardsRemaining != a.NewCardsRemaining+b.NewCardsRemaining {
		t.Errorf("new cards remaining: %d for all, want %d + %d", all.NewCardsRemaining, a.NewCardsRemaining, b.NewCardsRemaining)
	}
	for i := range all.Forecast {
		if sum := a.Forecast[i].Due + b.Forecast[i].Due; math.Abs(float64(all.Forecast[i].Due-sum)) > 1 {
			t.Errorf("%s: %d reviews for all decks, want %d + %d", all.Forecast[i].Date, all.Forecast[i].Due, a.Forecast[i].Due, b.Forecast[i].Due)
		}
	}
	if d := math.Abs(all.AverageDuePerDay - a.AverageDuePerDay - b.AverageDuePerDay); d > 0.02 {
		t.Errorf("average reviews a day: %.2f for all, want %.2f + %.2f", all.AverageDuePerDay, a.AverageDuePerDay, b.AverageDuePerDay)
	}
	// The one-day deck's cards come back every day: its preset, not the
	// default one, drives its part of the forecast.
	if a.AverageDuePerDay <= b.AverageDuePerDay {
		t.Errorf("average reviews a day: %.2f in the one-day deck, %.2f in the 0.75-retention deck; want the first higher", a.AverageDuePerDay, b.AverageDuePerDay)
	}
	t.Logf("daily %.2f + loose %.2f = all %.2f reviews a day", a.AverageDuePerDay, b.AverageDuePerDay, all.AverageDuePerDay)
}
