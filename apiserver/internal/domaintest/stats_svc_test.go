package domain_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestStatsOnSeededHistory(t *testing.T) { eachStore(t, testStatsOnSeededHistory) }

func testStatsOnSeededHistory(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	today := t0.Truncate(24 * time.Hour)
	at := func(dayOffset int) time.Time { return today.AddDate(0, 0, dayOffset).Add(9 * time.Hour) }

	e.clock.Set(at(-4))
	// A maximum interval of one day makes every graduated card due the next day.
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "History", NewCardsPerDay: ptr(2), MaximumIntervalDays: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	c := ids(e.add(ctx, d.ID, card("c0", "0"), card("c1", "1"), card("c2", "2"), card("c3", "3")))
	const (
		again = contracts.RatingAgain
		hard  = contracts.RatingHard
		good  = contracts.RatingGood
		easy  = contracts.RatingEasy
	)
	type rv struct {
		card   string
		rating contracts.Rating
	}
	days := []struct {
		offset  int
		reviews []rv
	}{
		{-4, []rv{{c[0], easy}, {c[1], easy}}},                              // 2 new
		{-2, []rv{{c[0], good}, {c[1], again}, {c[2], easy}, {c[3], easy}}}, // review: 1 of 2 passed
		{-1, []rv{{c[0], hard}, {c[1], good}, {c[2], again}, {c[3], good}}}, // review: 2 of 3 passed (c1 relearning)
		{0, []rv{{c[0], good}, {c[1], good}}},                               // review: 2 of 2 passed
	}
	for _, day := range days {
		e.clock.Set(at(day.offset))
		s := e.start(ctx, d.ID, nil, nil)
		for _, r := range day.reviews {
			e.review(ctx, s.ID, r.card, r.rating)
		}
	}
	e.clock.Set(at(0).Add(2 * time.Hour))

	st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: d.ID, Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	wantDays := []contracts.DayCount{
		{Date: "2026-03-04"}, {Date: "2026-03-05"}, {Date: "2026-03-06", Reviews: 2, Passed: 2}, {Date: "2026-03-07"},
		{Date: "2026-03-08", Reviews: 4, Passed: 3}, {Date: "2026-03-09", Reviews: 4, Passed: 3}, {Date: "2026-03-10", Reviews: 2, Passed: 2},
	}
	if len(st.ReviewsPerDay) != 7 {
		t.Fatalf("reviewsPerDay = %+v", st.ReviewsPerDay)
	}
	for i, w := range wantDays {
		if st.ReviewsPerDay[i] != w {
			t.Errorf("day %d = %+v, want %+v", i, st.ReviewsPerDay[i], w)
		}
	}
	if st.TotalReviews != 12 || st.StreakDays != 3 || st.Days != 7 || st.DeckID != d.ID {
		t.Errorf("total %d, streak %d, days %d", st.TotalReviews, st.StreakDays, st.Days)
	}
	if st.TimeSpentSeconds != 12*4 { // every review recorded 4 s
		t.Errorf("time spent %d s, want 48", st.TimeSpentSeconds)
	}
	if st.TrueRetention == nil || *st.TrueRetention != 0.7143 {
		t.Errorf("true retention %v, want 5/7 rounded to 0.7143", st.TrueRetention)
	}
	if want := (contracts.PhaseCounts{Review: 3, Relearning: 1}); st.CardStates != want {
		t.Errorf("card states %+v, want %+v", st.CardStates, want)
	}

	short, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{Days: 2})
	if short.TotalReviews != 6 || short.TrueRetention == nil || *short.TrueRetention != 0.8 || len(short.ReviewsPerDay) != 2 || short.TimeSpentSeconds != 24 {
		t.Errorf("two-day account stats: total %d retention %v", short.TotalReviews, short.TrueRetention)
	}
	// Yesterday's streak still counts before today's first review.
	e.clock.Set(at(1))
	if st, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{}); st.StreakDays != 3 || st.Days != 30 || len(st.ReviewsPerDay) != 30 {
		t.Errorf("next morning: streak %d, days %d", st.StreakDays, st.Days)
	}
	e.clock.Set(at(2))
	if st, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{}); st.StreakDays != 0 {
		t.Errorf("after a missed day: streak %d", st.StreakDays)
	}
	e.clock.Set(at(0).Add(2 * time.Hour))

	// The distribution: 4 scheduled cards, none past the deck's 1-day
	// maximum interval; the 12 answers by the card's age before each:
	// learning (new and relearning) easy ×4 and c1's good after its
	// lapse; young again ×2, hard, good ×4; no mature card.
	dist, err := e.svc.Stats.Distribution(ctx, contracts.GetStatsArgs{DeckID: d.ID, Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := contracts.Buttons{Learning: [4]int{0, 0, 1, 4}, Young: [4]int{2, 1, 4, 0}}
	if dist.Buttons != want || dist.Days != 7 || dist.DeckID != d.ID {
		t.Errorf("distribution buttons = %+v (days %d), want %+v", dist.Buttons, dist.Days, want)
	}
	sum := func(bs []contracts.Bucket) (n int) {
		for _, b := range bs {
			n += b.Cards
		}
		return n
	}
	if sum(dist.Intervals) != 4 || sum(dist.Stability) != 4 || sum(dist.Difficulty) != 4 ||
		dist.Intervals[0].Cards+dist.Intervals[1].Cards != 4 || dist.Intervals[1].Label != "1 d" || dist.Intervals[3].Label != "4–7 d" {
		t.Errorf("histograms: intervals %+v, stability %+v, difficulty %+v; want the 4 cards each, intervals ≤ 1 day", dist.Intervals, dist.Stability, dist.Difficulty)
	}
	if one, err := e.svc.Stats.Distribution(ctx, contracts.GetStatsArgs{DeckID: d.ID, Days: 1}); err != nil || one.Buttons != (contracts.Buttons{Young: [4]int{0, 0, 2, 0}}) {
		t.Errorf("today's buttons = %+v, %v; want c0 and c1 good (young)", one.Buttons, err)
	}
	_, err = e.svc.Stats.Distribution(ctx, contracts.GetStatsArgs{DeckID: "nope"})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Stats.Distribution(ctx, contracts.GetStatsArgs{Days: 400})
	wantKind(t, err, contracts.KindInvalid)

	// The plan: today holds c2 (relearning, overdue) and c3; tomorrow c0 and c1.
	e.add(ctx, d.ID, manyCards("later", 100)...)
	p, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The forecast simulates the deck: at least the two cards due today
	// and tomorrow, plus the learning steps of the new cards it adds.
	// Day 0 is what a session would serve now: c3 due, c2 relearning
	// (apart), and the deck's 2 new cards.
	if len(p.Forecast) != 3 || p.Forecast[0].Date != "2026-03-10" || p.Forecast[2].Date != "2026-03-12" ||
		p.Forecast[0] != (contracts.DueDay{Date: "2026-03-10", Due: 1, Learning: 1, New: 2}) || p.Forecast[1].Due < 2 {
		t.Errorf("forecast = %+v", p.Forecast)
	}
	// 12 timed reviews (< 20): default 10 s; capacity 120; more new cards
	// fit the budget, but the deck allows 2 a day: the plan never advises more.
	if p.SecondsPerReviewSource != "default" || p.CapacityPerDay != 120 || p.NewCardsPerDay != 2 || p.NewCardsRemaining != 100 || p.MinutesPerDay != 20 {
		t.Errorf("plan = %+v", p)
	}
	// The plan of every deck keeps each deck's own limit: the one deck
	// allows 2 new cards a day, so the account's plan is the deck's.
	all, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 3})
	if err != nil || all.NewCardsPerDay != 2 || !slices.Equal(all.Forecast, p.Forecast) {
		t.Errorf("account-wide plan = %+v, %v; want the one deck's plan %+v", all, err, p)
	}
	_, err = e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 366})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{MinutesPerDay: -1})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{Days: -1})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: "nope"})
	wantKind(t, err, contracts.KindNotFound)
}

func manyCards(prefix string, n int) []contracts.NewCard {
	out := make([]contracts.NewCard, n)
	for i := range out {
		out[i] = card(fmt.Sprintf("%s %d", prefix, i), "back")
	}
	return out
}

func TestPlanMeasuredSpeed(t *testing.T) { eachStore(t, testPlanMeasuredSpeed) }

func testPlanMeasuredSpeed(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, _ := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Speed", NewCardsPerDay: ptr(20)})
	cs := ids(e.add(ctx, d.ID, manyCards("q", 20)...))
	s := e.start(ctx, d.ID, nil, nil)
	for _, c := range cs {
		if _, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c, Rating: contracts.RatingEasy, DurationMs: 6000}); err != nil {
			t.Fatal(err)
		}
	}
	e.add(ctx, d.ID, manyCards("fresh", 50)...)
	p, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 1, MinutesPerDay: 10, Advise: true})
	if err != nil {
		t.Fatal(err)
	}
	// 600 s / 6 s = 100 reviews; the new cards that fit (each costs its
	// learning steps) are fewer than the 50 waiting, and advised apart:
	// the plan assumes the deck's limit (20), all of it used today, so
	// day 0 has nothing left.
	a := p.AdvisedNewCardsPerDay
	if p.SecondsPerReviewSource != "measured" || p.SecondsPerReview != 6 || p.CapacityPerDay != 100 || a == nil || *a < 5 || *a >= 50 ||
		p.NewCardsPerDay != 20 || p.Forecast[0].Due != 0 || p.Forecast[0].New != 0 {
		t.Errorf("plan = %+v, advised %v", p, a)
	}
	plain, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 1, MinutesPerDay: 10})
	if err != nil || plain.AdvisedNewCardsPerDay != nil || plain.NewCardsPerDay != 20 {
		t.Errorf("plan without advise = %+v, %v", plain, err)
	}
}
