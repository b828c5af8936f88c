package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/ports"
)

// The workload simulation behind the forecast, the study plan and the
// desired-retention advisor. It studies a deck's cards day by day as the
// learner would: every card due that day (learning steps again the same
// day as they come due), then the new cards the plan adds, within the
// deck's daily limits; as in sessions, learning steps carried over from
// an earlier day count against the review limit before review cards. Each review is recalled with the card's recall
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
	// newStride, when above 1, makes each simulated new card stand for
	// that many (the retention advisor's long horizons: simulating every
	// new card of a year would cost too much); the plan leaves it 0.
	newStride int
}

// SimDay is one day of a simulation's expected workload.
type SimDay struct {
	Reviews float64 // every rating given that day, learning steps included
	Due     float64 // review-phase cards reviewed that day
	Lapses  float64 // review-phase cards forgotten
	New     float64 // new cards introduced
	// Relearning counts the ratings of relearning steps (after lapses).
	Relearning float64
}

const (
	simBudget     = 120_000 // simulated reviews per forecast, all runs together
	simMaxRuns    = 16
	simStudyHour  = 9 // the simulated learner starts each day at 09:00 local
	simReviewTime = 10 * time.Second
)

// simulate runs the simulation; sched gives each next state. An error is
// the scheduler's (invalid settings or a corrupt card).
//
// The budget bounds the work: runs are added while they fit it (up to
// simMaxRuns), and when one run of every card would not fit, the run
// studies a random sample of the scheduled cards (at least simMinSample),
// each standing for len(Cards)/sample cards in the counts and the review
// limit, so a deck of any size costs about the budget.
func simulate(in SimInput, sched ports.Scheduler) ([]SimDay, error) {
	res, err := simulateAll(in, sched)
	return res.days, err
}

// simResult is what a simulation gives: the expected workload of each
// day and the expected number of cards recalled at the end of the last
// day (the knowledge the study left: the sum of every card's recall
// probability then; new cards not yet studied count nothing).
type simResult struct {
	days      []SimDay
	memorized float64
}

// simulateAll is simulate with the knowledge at the end.
func simulateAll(in SimInput, sched ports.Scheduler) (simResult, error) {
	out := make([]SimDay, in.Days)
	if in.Days <= 0 {
		return simResult{days: out}, nil
	}
	in.newStride = max(in.newStride, 1)
	budget := in.Budget
	if budget <= 0 {
		budget = simBudget
	}
	in.Cards = simOrder(in.Cards)
	weight := 1.0
	if keep := simSample(in, budget); keep < len(in.Cards) {
		weight = float64(len(in.Cards)) / float64(keep)
		in.Cards = sampleCards(in.Cards, keep, rand.New(rand.NewPCG(in.Seed, 1<<32)))
	}
	runs := min(max(budget/simCost(in, weight), 1), simMaxRuns)
	decay := contracts.DefaultWeights[20]
	if len(in.Settings.Weights) == 21 {
		decay = in.Settings.Weights[20]
	}
	rev, err := bind(sched, in.Settings)
	if err != nil {
		return simResult{}, err
	}
	memorized := 0.0
	for r := range runs {
		m, err := simRun(in, weight, rev, decay, rand.New(rand.NewPCG(in.Seed, uint64(r))), out)
		if err != nil {
			return simResult{}, err
		}
		memorized += m
	}
	for i := range out {
		out[i].Reviews /= float64(runs)
		out[i].Due /= float64(runs)
		out[i].Lapses /= float64(runs)
		out[i].New /= float64(runs)
		out[i].Relearning /= float64(runs)
	}
	return simResult{days: out, memorized: memorized / float64(runs)}, nil
}

// simMinSample is the fewest scheduled cards a sampled simulation studies.
const simMinSample = 2_000

// simSample is how many of the scheduled cards one run can study within
// the budget: all of them, or a sample that fits (at least simMinSample).
func simSample(in SimInput, budget int) int {
	n := len(in.Cards)
	if n <= simMinSample || simCost(in, 1) <= budget {
		return n
	}
	// The new cards' part of the cost stays; the scheduled cards' part
	// shrinks with the sample.
	fixed := simCost(SimInput{Days: in.Days, NewPerDay: in.NewPerDay, Settings: in.Settings}, 1)
	scaled := simCost(in, 1) - fixed
	keep := int(float64(n) * float64(budget-fixed) / float64(max(scaled, 1)))
	return min(max(keep, simMinSample), n)
}

// simOrder returns the cards oldest due first (stably), as a run takes
// them; cards already in that order are returned as they are.
func simOrder(cards []contracts.CardState) []contracts.CardState {
	if slices.IsSortedFunc(cards, func(a, b contracts.CardState) int { return a.Due.Compare(b.Due) }) {
		return cards
	}
	idx := make([]int, len(cards))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cards[a].Due.Compare(cards[b].Due); c != 0 {
			return c
		}
		return a - b
	})
	out := make([]contracts.CardState, len(cards))
	for i, k := range idx {
		out[i] = cards[k]
	}
	return out
}

// sampleCards draws keep of the cards at random, in their order.
func sampleCards(cards []contracts.CardState, keep int, rng *rand.Rand) []contracts.CardState {
	idx := make([]int, len(cards))
	for i := range idx {
		idx[i] = i
	}
	for i := range keep {
		j := i + rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	idx = idx[:keep]
	slices.Sort(idx)
	out := make([]contracts.CardState, keep)
	for i, k := range idx {
		out[i] = cards[k]
	}
	return out
}

// bind binds the scheduler to a deck's settings once when it can
// (ports.SettingsBinder), or calls it with them on every review.
func bind(sched ports.Scheduler, set contracts.DeckSettings) (ports.BoundScheduler, error) {
	if b, ok := sched.(ports.SettingsBinder); ok {
		return b.Bind(set)
	}
	return perReview{sched, set}, nil
}

// perReview is a scheduler that cannot bind settings, called with them on
// every review, with its own fuzz.
type perReview struct {
	sched ports.Scheduler
	set   contracts.DeckSettings
}

// ReviewFuzzed is the scheduler's ReviewOn; u is unused.
func (p perReview) ReviewFuzzed(st contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, _ float64) (contracts.CardState, error) {
	return p.sched.ReviewOn(st, p.set, day, now, rating)
}

// simCost is about what one run of a simulation costs, in reviews: a
// review per scheduled card every few days, within the deck's review
// limit (counted in cards of weight weight, as a sampled run counts
// them), the learning steps of the new cards and of the lapses, and a
// little per card for filing the scheduled cards.
func simCost(in SimInput, weight float64) int {
	perDay := len(in.Cards) / 4
	if in.Settings.ReviewsPerDay > 0 {
		perDay = min(perDay, int(float64(in.Settings.ReviewsPerDay)/weight)+1)
	}
	return in.Days*(perDay+perDay/8+in.NewPerDay*4/max(in.newStride, 1)) + len(in.Cards)/16 + 1
}

// simRun is one run; it adds its counts to out and returns the expected
// cards recalled at the end of its last day. Each of in.Cards stands for
// weight cards (more than one when they are a sample); the new cards the
// run adds for in.newStride each (at least 1). Review-phase cards wait
// in buckets by due day (those due before today in today's), oldest
// first, so a day takes its due cards without looking at the others;
// learning and relearning steps come back in order of their due times
// from a heap.
func simRun(in SimInput, weight float64, rev ports.BoundScheduler, decay float64, rng *rand.Rand, out []SimDay) (float64, error) {
	stride := max(in.newStride, 1)
	cards := make([]contracts.CardState, len(in.Cards), len(in.Cards)+in.NewPerDay*in.Days/stride+1)
	copy(cards, in.Cards)
	sampled := int32(len(in.Cards))
	weightOf := func(i int32) float64 {
		if i < sampled {
			return weight
		}
		return float64(stride)
	}
	buckets := make([][]int32, in.Days)
	load := simLoad{} // review cards due each day, for balancing (loads.go)
	choose, balanced := rev.(study.ChoosingScheduler)
	var steps stepHeap // learning and relearning cards due today, soonest first
	var later []int32  // learning and relearning cards due on a later day
	dayEnd := in.Day.StartOfDate(in.Day.Date(in.Now).AddDate(0, 0, 1))
	// place files card i by its phase and due time after a review (or at the start).
	place := func(i int32) {
		st := &cards[i]
		switch st.Phase {
		case contracts.PhaseReview:
			k := max(in.Day.DaysBetween(in.Now, st.Due), 0)
			if k < in.Days {
				buckets[k] = append(buckets[k], i)
			}
			load.add(k, weightOf(i))
		case contracts.PhaseLearning, contracts.PhaseRelearning:
			if st.Due.Before(dayEnd) {
				steps.push(cards, i)
			} else {
				later = append(later, i)
			}
		}
	}
	// The cards at the start, oldest due first (simOrder).
	for i := range sampled {
		place(i)
	}
	factor := math.Pow(0.9, -1/decay) - 1
	fresh := in.NewCards
	today := in.Day.Date(in.Now)
	set := in.Settings
	var carry []int32 // review cards due but left over by the review limit, oldest first
	owed := 0         // new cards introduced but not yet simulated (fewer than stride)
	for d := range in.Days {
		dayStart := in.Day.StartOfDate(today.AddDate(0, 0, d))
		dayEnd = in.Day.StartOfDate(today.AddDate(0, 0, d+1))
		if d > 0 {
			// Learning steps due today join the heap.
			kept := later[:0]
			for _, i := range later {
				if cards[i].Due.Before(dayEnd) {
					steps.push(cards, i)
				} else {
					kept = append(kept, i)
				}
			}
			later = kept
		}
		t := dayStart.Add(simStudyHour * time.Hour)
		if d == 0 && in.Now.After(t) {
			t = in.Now
		}
		reviewsLeft := float64(set.ReviewsPerDay)
		if reviewsLeft <= 0 {
			reviewsLeft = math.Inf(1)
		}
		easy := study.EasyWeight(set.EasyDays, today.AddDate(0, 0, d)) // the easy days, from today
		loadFrom := load.from(d)
		review := func(i int32) error {
			st := cards[i]
			rating := contracts.RatingGood
			switch {
			case st.Phase == contracts.PhaseNew:
				rating = pick(rng, in.Mix.First[:], contracts.RatingAgain, contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy)
			default:
				if rng.Float64() >= recallProbability(st, in.Day, t, decay, factor) {
					rating = contracts.RatingAgain
				} else {
					rating = pick(rng, in.Mix.Recall[:], contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy)
				}
			}
			var next contracts.CardState
			var err error
			if balanced {
				if st.Phase == contracts.PhaseReview {
					load.add(max(in.Day.DaysBetween(in.Now, st.Due), 0), -weightOf(i))
				}
				next, err = choose.ReviewChoosing(st, in.Day, t, rating, fsrs.Balance(rng.Float64(), loadFrom, easy))
			} else {
				next, err = rev.ReviewFuzzed(st, in.Day, t, rating, rng.Float64())
			}
			if err != nil {
				return err
			}
			w := weightOf(i)
			out[d].Reviews += w
			switch st.Phase {
			case contracts.PhaseReview:
				out[d].Due += w
				if rating == contracts.RatingAgain {
					out[d].Lapses += w
				}
			case contracts.PhaseRelearning:
				out[d].Relearning += w
			}
			cards[i] = next
			place(i)
			t = t.Add(simReviewTime)
			return nil
		}
		// Learning steps carried over from an earlier day (interday steps,
		// or steps left over) take the review limit first, as sessions
		// take them (study.CarriedOver); those it leaves wait for the next
		// day. Steps set today are outside every limit.
		var todays []int32
		for {
			i, ok := steps.pop(cards)
			if !ok {
				break
			}
			todays = append(todays, i)
		}
		full := false
		for _, i := range todays {
			if study.CarriedOver(cards[i], in.Day, t) {
				w := weightOf(i)
				if full = full || w > reviewsLeft+1e-9; full {
					later = append(later, i)
					continue
				}
				reviewsLeft -= w
			}
			steps.push(cards, i)
		}
		// Reviews due today, oldest first, within what the review limit leaves.
		due := append(carry, buckets[d]...)
		buckets[d] = nil
		carry = nil
		take := 0
		for ; take < len(due); take++ {
			w := weightOf(due[take])
			if w > reviewsLeft+1e-9 {
				break
			}
			reviewsLeft -= w
		}
		if take < len(due) {
			carry = slices.Clone(due[take:])
			due = due[:take]
		}
		for _, i := range due {
			if err := review(i); err != nil {
				return 0, err
			}
		}
		// New cards, within the new-card limit and what the review limit leaves.
		n := min(in.NewPerDay, fresh, int(min(reviewsLeft, math.MaxInt32)+1e-9))
		if set.NewCardsPerDay >= 0 {
			n = min(n, set.NewCardsPerDay)
		}
		n = max(n, 0)
		fresh -= n
		out[d].New += float64(n)
		owed += n
		for ; owed >= stride; owed -= stride {
			cards = append(cards, contracts.CardState{Phase: contracts.PhaseNew, Due: t})
			if err := review(int32(len(cards) - 1)); err != nil {
				return 0, err
			}
		}
		// Learning and relearning steps come back as they come due, until none is left today.
		for range 100_000 {
			i, ok := steps.pop(cards)
			if !ok {
				break
			}
			if cards[i].Due.After(t) {
				t = cards[i].Due
			}
			if err := review(i); err != nil {
				return 0, err
			}
		}
	}
	// The knowledge at the end: every studied card's recall probability
	// at the start of the day after the last.
	end := in.Day.StartOfDate(today.AddDate(0, 0, in.Days))
	memorized := 0.0
	for i := range cards {
		memorized += weightOf(int32(i)) * recallProbability(cards[i], in.Day, end, decay, factor)
	}
	return memorized, nil
}

// stepHeap is a min-heap of cards by due time (then index: the card
// added first).
type stepHeap []int32

func (h stepHeap) less(cards []contracts.CardState, a, b int32) bool {
	if c := cards[a].Due.Compare(cards[b].Due); c != 0 {
		return c < 0
	}
	return a < b
}

// push adds card i.
func (h *stepHeap) push(cards []contracts.CardState, i int32) {
	*h = append(*h, i)
	s := *h
	for k := len(s) - 1; k > 0; {
		p := (k - 1) / 2
		if !s.less(cards, s[k], s[p]) {
			break
		}
		s[k], s[p] = s[p], s[k]
		k = p
	}
}

// pop removes and returns the card due soonest; ok is false when empty.
func (h *stepHeap) pop(cards []contracts.CardState) (int32, bool) {
	s := *h
	if len(s) == 0 {
		return 0, false
	}
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for k := 0; ; {
		m, l, r := k, 2*k+1, 2*k+2
		if l < len(s) && s.less(cards, s[l], s[m]) {
			m = l
		}
		if r < len(s) && s.less(cards, s[r], s[m]) {
			m = r
		}
		if m == k {
			break
		}
		s[k], s[m] = s[m], s[k]
		k = m
	}
	*h = s
	return top, true
}

// recallProbability is the FSRS-6 forgetting curve: the chance of
// recalling a card at t, from its stability and the learner's days since
// its last review (1 on the day of that review). factor is the curve's
// 0.9^(-1/decay) - 1.
func recallProbability(st contracts.CardState, day contracts.LearnerDay, t time.Time, decay, factor float64) float64 {
	if st.LastReview == nil || st.Stability <= 0 {
		return 1
	}
	elapsed := float64(max(day.DaysBetween(*st.LastReview, t), 0))
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
