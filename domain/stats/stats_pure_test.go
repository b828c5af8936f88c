package stats

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// The plan's recommendation fits the budget every day of the simulation
// and never exceeds what the deck allows.
func TestRecommendNew(t *testing.T) {
	set := contracts.DefaultDeckSettings().WithDefaults()
	set.NewCardsPerDay = 10
	in := SimInput{NewCards: 1000, Settings: set, Now: time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC), Days: 7, NewPerDay: 10, Mix: DefaultRatingMix, Seed: 3}
	sched := fsrs.New()
	w := workload{decks: []SimInput{in}}
	if n, err := recommendNew(w, 7, 10000, sched); err != nil || n != 10 {
		t.Errorf("a large budget: %d new cards a day, %v; want the deck's 10", n, err)
	}
	if n, err := recommendNew(w, 7, 0, sched); err != nil || n != 0 {
		t.Errorf("no budget: %d, %v; want 0", n, err)
	}
	in.Settings.NewCardsPerDay, in.NewPerDay = 200, 200
	n, err := recommendNew(workload{decks: []SimInput{in}}, 7, 40, sched)
	if err != nil || n <= 0 || n >= 40 {
		t.Fatalf("40 reviews a day: %d new cards a day, %v; want some, fewer than 40", n, err)
	}
	in.Days, in.NewPerDay = planHorizon, n
	sim, err := simulate(in, sched)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range sim {
		if d.Reviews > 40 {
			t.Errorf("%d new cards a day simulate to %.1f reviews on day %d, over the 40 that fit", n, d.Reviews, i)
		}
	}
	t.Logf("40 reviews a day fit %d new cards a day", n)
}

func TestStreakAndFillDays(t *testing.T) {
	today := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	d := func(daysAgo, n int) ports.ReviewDay {
		return ports.ReviewDay{Day: today.AddDate(0, 0, -daysAgo), Reviews: n, Passed: n / 2}
	}
	if n := streak([]ports.ReviewDay{d(5, 1), d(2, 3), d(1, 1), d(0, 4)}, today); n != 3 {
		t.Errorf("streak with today = %d, want 3", n)
	}
	if n := streak([]ports.ReviewDay{d(3, 1), d(2, 3), d(1, 1)}, today); n != 3 {
		t.Errorf("streak ending yesterday = %d, want 3", n)
	}
	if n := streak([]ports.ReviewDay{d(2, 3)}, today); n != 0 {
		t.Errorf("broken streak = %d, want 0", n)
	}
	if n := streak(nil, today); n != 0 {
		t.Errorf("no history = %d", n)
	}
	days := fillDays([]ports.ReviewDay{d(9, 7), d(2, 4), d(0, 2)}, today.AddDate(0, 0, -2), 3)
	want := []contracts.DayCount{{Date: "2026-05-08", Reviews: 4, Passed: 2}, {Date: "2026-05-09"}, {Date: "2026-05-10", Reviews: 2, Passed: 1}}
	for i := range want {
		if days[i] != want[i] {
			t.Errorf("fillDays[%d] = %+v, want %+v", i, days[i], want[i])
		}
	}
}
