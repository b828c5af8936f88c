package fsrsopt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// trueWeights are a learner who forgets faster than the defaults say
// (lower initial stabilities, slower growth, a steeper curve).
var trueWeights = []float64{0.15, 0.6, 1.5, 5.0, 6.8, 0.7, 2.4, 0.01, 1.3, 0.25, 1.1,
	1.9, 0.09, 0.35, 1.4, 0.45, 2.2, 0.6, 0.2, 0.1, 0.35}

// simulate runs a learner through the project's scheduler for days days:
// cards are scheduled with the default weights, while the learner's
// memory follows the same scheduler with truth's weights; a review card
// is recalled with truth's forgetting curve. It returns each card's
// history in UTC days.
func simulate(t testing.TB, truth []float64, cards, newPerDay, days int, seed uint64) []History {
	t.Helper()
	sched := fsrs.New()
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	day := contracts.LearnerDay{Location: time.UTC}
	plan := contracts.DefaultDeckSettings()
	mem := plan
	mem.Weights = truth
	type card struct{ plan, mem contracts.CardState }
	deck := make([]card, 0, cards)
	hist := make([]History, 0, cards)
	decay := truth[20]
	factor := math.Pow(0.9, -1/decay) - 1
	pick := func(p []float64) contracts.Rating {
		x := rng.Float64()
		for i, v := range p {
			if x < v {
				return contracts.Ratings[i+4-len(p)]
			}
			x -= v
		}
		return contracts.RatingGood
	}
	review := func(i int, now time.Time) {
		c := &deck[i]
		var g contracts.Rating
		switch c.plan.Phase {
		case contracts.PhaseNew:
			g = pick([]float64{0.2, 0.15, 0.55, 0.1})
		case contracts.PhaseReview:
			el := day.Date(now).Sub(day.Date(*c.mem.LastReview)).Hours() / 24
			if rng.Float64() >= math.Pow(1+factor*el/c.mem.Stability, -decay) {
				g = contracts.RatingAgain
			} else {
				g = pick([]float64{0.1, 0.8, 0.1})
			}
		default:
			g = pick([]float64{0.1, 0.05, 0.8, 0.05})
		}
		var err error
		if c.plan, err = sched.ReviewOn(c.plan, plan, day, now, g); err != nil {
			t.Fatal(err)
		}
		if c.mem, err = sched.ReviewOn(c.mem, mem, day, now, g); err != nil {
			t.Fatal(err)
		}
		hist[i].Reviews = append(hist[i].Reviews, Review{Rating: g, Day: int(now.Unix() / 86400), At: now})
	}
	for d := range days {
		now := start.AddDate(0, 0, d).Add(9 * time.Hour)
		end := start.AddDate(0, 0, d+1)
		for i := range deck {
			if deck[i].plan.Phase == contracts.PhaseReview && deck[i].plan.Due.Before(end) {
				review(i, now)
				now = now.Add(10 * time.Second)
			}
		}
		for k := 0; k < newPerDay && len(deck) < cards; k++ {
			deck = append(deck, card{plan: fsrs.NewState(now), mem: fsrs.NewState(now)})
			hist = append(hist, History{Card: fmt.Sprintf("c%d", len(deck))})
			review(len(deck)-1, now)
			now = now.Add(10 * time.Second)
		}
		for {
			next := -1
			for i := range deck {
				p := deck[i].plan
				if (p.Phase == contracts.PhaseLearning || p.Phase == contracts.PhaseRelearning) && p.Due.Before(end) &&
					(next < 0 || p.Due.Before(deck[next].plan.Due)) {
					next = i
				}
			}
			if next < 0 {
				break
			}
			if due := deck[next].plan.Due; due.After(now) {
				now = due
			}
			review(next, now)
			now = now.Add(10 * time.Second)
		}
	}
	return hist
}
