package stats

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

// A plan recomputed after one deck changed simulates only that deck
// again, and answers exactly what a computation remembering nothing
// does.
func TestWorkloadRemembersUnchangedDecks(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	w := bigWorkload(6_000, now)
	sched := fsrs.New()
	remember := func(w workload) workload {
		w.sims, w.userID, w.sums = &simCache{}, "u1", nil
		for _, in := range w.decks {
			w.sums = append(w.sums, cardsSum(in.Cards))
		}
		return w
	}
	cached := remember(w)
	plan := func(w workload) (int, []SimDay) {
		t.Helper()
		n, sim, err := planForecast(w, 30, 120, true, sched)
		if err != nil {
			t.Fatal(err)
		}
		return n, sim
	}
	n0, sim0 := plan(cached)
	first := cached.sims.misses
	if n, sim := plan(cached); n != n0 || !slices.Equal(sim, sim0) || cached.sims.misses != first {
		t.Fatalf("the same plan again: %d new a day and %d more simulations, want %d and none", n, cached.sims.misses-first, n0)
	}
	// One review-phase card of deck 1 is reviewed: its state changes.
	changed := w
	changed.decks = slices.Clone(w.decks)
	cards := slices.Clone(changed.decks[1].Cards)
	for i, c := range cards {
		if c.Phase == contracts.PhaseReview {
			c.Stability *= 2
			c.Due = c.Due.AddDate(0, 0, 3)
			cards[i] = c
			break
		}
	}
	changed.decks[1].Cards = simOrder(cards)
	again := remember(changed)
	again.sims = cached.sims
	before := cached.sims.misses
	n1, sim1 := plan(again)
	resimulated := cached.sims.misses - before
	if resimulated == 0 || resimulated*len(w.decks) > first {
		t.Errorf("after one deck changed, %d of %d simulations ran again; want those of that deck only", resimulated, first)
	}
	fresh, freshSim := plan(changed) // nothing remembered
	if n1 != fresh || !slices.Equal(sim1, freshSim) {
		t.Errorf("remembered plan after the change: %d new a day, %v; computed afresh %d, %v", n1, sim1, fresh, freshSim)
	}
}
