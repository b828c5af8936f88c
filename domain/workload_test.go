package domain

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// New cards a day are shared among decks one at a time, each up to what it
// allows, and the account-wide cap bounds the total.
func TestWorkloadSplit(t *testing.T) {
	w := workload{decks: []SimInput{{NewPerDay: 2}, {NewPerDay: 10}, {NewPerDay: 0}, {NewPerDay: 5}}}
	for n, want := range map[int][]int{0: {0, 0, 0, 0}, 3: {1, 1, 0, 1}, 7: {2, 3, 0, 2}, 15: {2, 8, 0, 5}, 40: {2, 10, 0, 5}} {
		if got := w.split(n); !slices.Equal(got, want) {
			t.Errorf("split(%d) = %v, want %v", n, got, want)
		}
	}
	if got := w.mostNew(); got != 17 {
		t.Errorf("mostNew = %d, want 17", got)
	}
	w.acctNew = 9
	if got := w.mostNew(); got != 9 {
		t.Errorf("mostNew under an account cap of 9 = %d, want 9", got)
	}
}

// The workload of several decks is the sum of each deck simulated alone
// under its own settings: a deck with a one-day maximum interval keeps
// its cards coming back every day, the other does not.
func TestWorkloadSumsDecks(t *testing.T) {
	now := time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)
	daily := contracts.DefaultDeckSettings().WithDefaults()
	daily.MaximumIntervalDays, daily.NewCardsPerDay = 1, 4
	slow := contracts.DefaultDeckSettings().WithDefaults()
	slow.DesiredRetention, slow.NewCardsPerDay = 0.8, 6
	a := SimInput{NewCards: 100, Settings: daily, Now: now, NewPerDay: 4, Mix: DefaultRatingMix, Seed: 1}
	b := SimInput{NewCards: 100, Settings: slow, Now: now, NewPerDay: 6, Mix: DefaultRatingMix, Seed: 2}
	sched := fsrs.New()
	both, err := workload{decks: []SimInput{a, b}}.simulate(10, 20, simBudget, sched)
	if err != nil {
		t.Fatal(err)
	}
	alone := func(in SimInput) []SimDay {
		sim, err := workload{decks: []SimInput{in}}.simulate(in.NewPerDay, 20, simBudget, sched)
		if err != nil {
			t.Fatal(err)
		}
		return sim
	}
	sa, sb := alone(a), alone(b)
	for d := range both {
		if want := sa[d].Reviews + sb[d].Reviews; both[d].Reviews != want {
			t.Errorf("day %d: %.3f reviews for both decks, want %.3f + %.3f", d, both[d].Reviews, sa[d].Reviews, sb[d].Reviews)
		}
	}
	if sa[19].Reviews <= sb[19].Reviews {
		t.Errorf("day 19: the one-day deck simulates %.1f reviews, the 0.8-retention deck %.1f; want the first far more", sa[19].Reviews, sb[19].Reviews)
	}
}
