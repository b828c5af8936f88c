package domain

import (
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// The workload simulation behind the forecast, the study plan and the
// desired-retention advisor. It studies a deck's cards day by day as the
// learner would: every card due that day (learning steps again the same
// day as they come due), then the new cards the plan adds, within the
// deck's daily limits. Each review is recalled with the card's recall
// probability on that day (the FSRS-6 forgetting curve of its stability
// and the days since its last review); a recalled card is rated hard, good
// or easy, a forgotten one again (a lapse), new cards' first ratings come
// from their own distribution, and the deck's scheduler picks each next
// state. The day's counts are averaged over several seeded runs (Monte
// Carlo), so the same inputs always give the same forecast.

// RatingMix is how a learner rates: the chances of the first rating of a
// new card (again, hard, good, easy) and of hard, good and easy when a card
// is recalled.
type RatingMix struct {
	First  [4]float64
	Recall [3]float64
}

// DefaultRatingMix is the mix the reference FSRS simulator assumes, used
// until the learner's own review log has enough ratings.
var DefaultRatingMix = RatingMix{First: [4]float64{0.24, 0.094, 0.495, 0.171}, Recall: [3]float64{0.224, 0.632, 0.144}}

// SimInput is what a workload simulation needs.
type SimInput struct {
	Cards     []contracts.CardState // the deck's unsuspended cards that are not new
	NewCards  int                   // the new cards waiting
	Settings  contracts.DeckSettings
	Day       contracts.LearnerDay
	Now       time.Time // the simulation starts now, in today's learner day
	Days      int
	NewPerDay int // new cards introduced per day (within Settings.NewCardsPerDay)
	Mix       RatingMix
	// Budget bounds the simulated reviews over all runs (default
	// simBudget): big decks get fewer runs, so the cost stays bounded.
	Budget int
	Seed   uint64
}

// SimDay is one day of a simulation's expected workload.
type SimDay struct {
	Reviews float64 // every rating given that day, learning steps included
	Due     float64 // review-phase cards reviewed that day
	Lapses  float64 // review-phase cards forgotten
	New     float64 // new cards introduced
}

const (
	simBudget     = 120_000 // simulated reviews per forecast, all runs together
	simMaxRuns    = 16
	simStudyHour  = 9 // the simulated learner starts each day at 09:00 local
	simReviewTime = 10 * time.Second
)

// simulate runs the simulation; sched gives each next state. An error is
// the scheduler's (invalid settings or a corrupt card).
func simulate(in SimInput, sched ports.Scheduler) ([]SimDay, error) {
	out := make([]SimDay, in.Days)
	if in.Days <= 0 {
		return out, nil
	}
	budget := in.Budget
	if budget <= 0 {
		budget = simBudget
	}
	runs := min(max(budget/simCost(in), 1), simMaxRuns)
	decay := contracts.DefaultWeights[20]
	if len(in.Settings.Weights) == 21 {
		decay = in.Settings.Weights[20]
	}
	for r := range runs {
		if err := simRun(in, sched, decay, rand.New(rand.NewPCG(in.Seed, uint64(r))), out); err != nil {
			return nil, err
		}
	}
	for i := range out {
		out[i].Reviews /= float64(runs)
		out[i].Due /= float64(runs)
		out[i].Lapses /= float64(runs)
		out[i].New /= float64(runs)
	}
	return out, nil
}

// simCost is about what one run of a simulation costs: a review per card
// every few days, plus the learning steps of the new cards.
func simCost(in SimInput) int {
	return len(in.Cards)*in.Days/4 + in.NewPerDay*in.Days*4 + 1
}

// simCard is a card in a run.
type simCard struct {
	st  contracts.CardState
	idx int
}

// simRun is one run; it adds its counts to out.
func simRun(in SimInput, sched ports.Scheduler, decay float64, rng *rand.Rand, out []SimDay) error {
	active := make([]*simCard, 0, len(in.Cards)+in.NewPerDay*in.Days)
	for i, c := range in.Cards {
		active = append(active, &simCard{st: c, idx: i})
	}
	fresh := in.NewCards
	today := in.Day.Date(in.Now)
	set := in.Settings
	for d := range in.Days {
		dayStart := in.Day.StartOfDate(today.AddDate(0, 0, d))
		dayEnd := in.Day.StartOfDate(today.AddDate(0, 0, d+1))
		t := dayStart.Add(simStudyHour * time.Hour)
		if d == 0 && in.Now.After(t) {
			t = in.Now
		}
		reviewsLeft := set.ReviewsPerDay
		if reviewsLeft <= 0 {
			reviewsLeft = math.MaxInt
		}
		review := func(c *simCard) error {
			rating := contracts.RatingGood
			phase := c.st.Phase
			switch {
			case phase == contracts.PhaseNew:
				rating = pick(rng, in.Mix.First[:], contracts.RatingAgain, contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy)
			default:
				if rng.Float64() >= recallProbability(c.st, in.Day, t, decay) {
					rating = contracts.RatingAgain
				} else {
					rating = pick(rng, in.Mix.Recall[:], contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy)
				}
			}
			next, err := sched.ReviewOn(c.st, set, in.Day, t, rating)
			if err != nil {
				return err
			}
			out[d].Reviews++
			if phase == contracts.PhaseReview {
				out[d].Due++
				if rating == contracts.RatingAgain {
					out[d].Lapses++
				}
			}
			c.st = next
			t = t.Add(simReviewTime)
			return nil
		}
		// Reviews due today, oldest first, within the review limit.
		var due []*simCard
		for _, c := range active {
			if c.st.Phase == contracts.PhaseReview && c.st.Due.Before(dayEnd) {
				due = append(due, c)
			}
		}
		sort.Slice(due, func(i, j int) bool {
			if !due[i].st.Due.Equal(due[j].st.Due) {
				return due[i].st.Due.Before(due[j].st.Due)
			}
			return due[i].idx < due[j].idx
		})
		if len(due) > reviewsLeft {
			due = due[:reviewsLeft]
		}
		reviewsLeft -= len(due)
		for _, c := range due {
			if err := review(c); err != nil {
				return err
			}
		}
		// New cards, within the new-card limit and what the review limit leaves.
		n := min(in.NewPerDay, fresh, reviewsLeft)
		if set.NewCardsPerDay >= 0 {
			n = min(n, set.NewCardsPerDay)
		}
		for range max(n, 0) {
			c := &simCard{st: contracts.CardState{Phase: contracts.PhaseNew, Due: t}, idx: len(active)}
			fresh--
			active = append(active, c)
			out[d].New++
			if err := review(c); err != nil {
				return err
			}
		}
		// Learning and relearning steps come back as they come due, until none is left today.
		var steps []*simCard
		for _, c := range active {
			if c.st.Phase == contracts.PhaseLearning || c.st.Phase == contracts.PhaseRelearning {
				steps = append(steps, c)
			}
		}
		for range 100_000 {
			var next *simCard
			for _, c := range steps {
				if (c.st.Phase == contracts.PhaseLearning || c.st.Phase == contracts.PhaseRelearning) &&
					c.st.Due.Before(dayEnd) && (next == nil || c.st.Due.Before(next.st.Due)) {
					next = c
				}
			}
			if next == nil {
				break
			}
			if next.st.Due.After(t) {
				t = next.st.Due
			}
			if err := review(next); err != nil {
				return err
			}
		}
	}
	return nil
}

// recallProbability is the FSRS-6 forgetting curve: the chance of
// recalling a card at t, from its stability and the learner's days since
// its last review (1 on the day of that review).
func recallProbability(st contracts.CardState, day contracts.LearnerDay, t time.Time, decay float64) float64 {
	if st.LastReview == nil || st.Stability <= 0 {
		return 1
	}
	elapsed := float64(max(day.DaysBetween(*st.LastReview, t), 0))
	factor := math.Pow(0.9, -1/decay) - 1
	return math.Pow(1+factor*elapsed/st.Stability, -decay)
}

// pick draws one of the ratings with the given chances.
func pick(rng *rand.Rand, p []float64, ratings ...contracts.Rating) contracts.Rating {
	total := 0.0
	for _, v := range p {
		total += v
	}
	x := rng.Float64() * total
	for i, v := range p {
		if x < v {
			return ratings[i]
		}
		x -= v
	}
	return ratings[len(ratings)-1]
}
