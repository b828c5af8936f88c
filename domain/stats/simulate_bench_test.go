package stats

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// bigWorkload is the study plan's input for the big account of bench
// bigread (issue 12 §3): cards in five decks under the default settings,
// 36% new, 60% in review (intervals of 1-90 days, some overdue), 4% in
// learning or relearning, as bench/internal/servers seeds them.
func bigWorkload(cards int, now time.Time) workload {
	rng := rand.New(rand.NewPCG(12, 3))
	const decks = 5
	states := make([][]contracts.CardState, decks)
	fresh := make([]int, decks)
	for i := range cards {
		d := i % decks
		p := rng.IntN(100)
		switch {
		case p >= 64:
			fresh[d]++
		case p < 60:
			sched := 1 + rng.IntN(90)
			last := now.Add(-time.Duration(rng.IntN(sched+6))*24*time.Hour - time.Duration(rng.IntN(3600))*time.Second)
			states[d] = append(states[d], contracts.CardState{Phase: contracts.PhaseReview, Due: last.Add(time.Duration(sched) * 24 * time.Hour),
				Stability: float64(sched) * (0.8 + 0.4*rng.Float64()), Difficulty: 1 + 9*rng.Float64(),
				ScheduledDays: sched, Reps: 1 + rng.IntN(4), Lapses: rng.IntN(2), LastReview: &last})
		default:
			phase := contracts.PhaseLearning
			if p >= 63 {
				phase = contracts.PhaseRelearning
			}
			last := now.Add(-time.Duration(rng.IntN(600)) * time.Second)
			states[d] = append(states[d], contracts.CardState{Phase: phase, Due: last.Add(10 * time.Minute), Stability: 0.5 + rng.Float64(),
				Difficulty: 3 + 5*rng.Float64(), Reps: 1, LastReview: &last})
		}
	}
	acct := contracts.DefaultAccountSettings()
	day := contracts.NewLearnerDay(acct)
	w := workload{day: day}
	for d := range decks {
		deck := contracts.Deck{ID: string(rune('a' + d)), Settings: contracts.DefaultDeckSettings()}
		w.decks = append(w.decks, simInput(deck, states[d], fresh[d], acct, day, now))
	}
	return w
}

// BenchmarkStudyPlanCold is the simulation of a study plan computed with
// nothing remembered (the first get_study_plan of the day, or the first
// after a write) on the 100,000-card account of bench bigread, with the
// plan's defaults (30 days, 20 minutes a day at 10 s a review).
func BenchmarkStudyPlanCold(b *testing.B) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	w := bigWorkload(100_000, now)
	sched := fsrs.New()
	capacity := int(DefaultMinutesPerDay * 60 / contracts.DefaultSecondsPerReview)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, _, err := planForecast(w, contracts.DefaultPlanDays, capacity, true, sched); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the process's CPU time (user and system, the
// garbage collector's included) per operation, which a loaded machine
// measures better than wall time: call it before the loop, and the
// function it returns after.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkStudyPlanAfterReview is the simulation of a study plan
// recomputed after one review (which bumps the account's data version):
// the decks are hashed again, and only the reviewed deck is simulated
// again (simCache).
func BenchmarkStudyPlanAfterReview(b *testing.B) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	w := bigWorkload(100_000, now)
	w.sims, w.userID = &simCache{}, "u1"
	sched := fsrs.New()
	capacity := int(DefaultMinutesPerDay * 60 / contracts.DefaultSecondsPerReview)
	plan := func() {
		w.sums = w.sums[:0]
		for _, in := range w.decks {
			w.sums = append(w.sums, cardsSum(in.Cards))
		}
		if _, _, err := planForecast(w, contracts.DefaultPlanDays, capacity, true, sched); err != nil {
			b.Fatal(err)
		}
	}
	plan()
	cards := w.decks[0].Cards
	b.ReportAllocs()
	defer reportCPU(b)()
	for k := 0; b.Loop(); k++ {
		// A review of one card of deck 0: a new state.
		cards[k%len(cards)].Reps++
		plan()
	}
}
