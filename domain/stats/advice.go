package stats

import (
	"context"
	"math"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// The retention advisor (issue 28 §3): the deck's workload simulation
// (simulate.go) run at several desired retentions under the deck's
// preset, each measuring the workload and the knowledge at the end (the
// expected number of the deck's cards recalled then: the sum of their
// recall probabilities, Anki's "memorized" count), and the minimum
// recommended retention, as Anki's "compute minimum recommended
// retention": the retention of contracts.AdviceLowest-AdviceHighest
// whose cost per card memorized is least, the cost being the study time
// with forgetting weighed lossAversion times. Below it, forgetting costs
// more per card known; above it, each card known costs more reviews (a
// fair trade for more knowledge, not a cheaper one).
//
// The work is bounded whatever the deck: each retention simulates about
// advisorBudget reviews at most (a random sample of a big deck's
// scheduled cards, each standing for several) and at most about
// advisorNew new cards (each standing for several when the deck adds
// more over the days), and the search costs about 9 + 2*advisorRefine
// retentions. Every evaluation uses the same seed, so the retentions are
// compared on the same random draws (common random numbers) and the
// answer is the same for the same deck and day.

const (
	// advisorBudget bounds one evaluation's simulated reviews as
	// simulate's budget does (simCost): a deck that costs less gets more
	// runs (up to simMaxRuns), one that costs more one run of a sample of
	// its scheduled cards (at least simMinSample).
	advisorBudget = 100_000
	// advisorNew is the most new cards one evaluation simulates.
	advisorNew = 1_500
	// advisorRefine is how far, in hundredths, the search looks on each
	// side of the best of the coarse grid.
	advisorRefine = 3
	// lossAversion is how many times its study time forgetting a card
	// weighs in the cost the recommendation minimises (the Again of the
	// review and the relearning steps after it), as in the reference
	// FSRS simulator's minimum recommended retention (fsrs-rs, 2.5): a
	// card forgotten costs more than the time spent relearning it.
	lossAversion = 2.5
)

// RetentionAdvice simulates the deck's next args.Days days (default
// contracts.DefaultAdviceDays) under its preset at each of
// contracts.AdvisorRetentions, at its current retention and at the
// minimum recommended retention it finds, with the deck's new cards a
// day. Answers are remembered per account, arguments, learner's date and
// data version (readCache), as plans are.
func (s *StatsService) RetentionAdvice(ctx context.Context, args contracts.GetRetentionAdviceArgs) (contracts.RetentionAdvice, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	if args.DeckID == "" {
		return contracts.RetentionAdvice{}, contracts.Errorf(contracts.KindInvalid, "deckId is required")
	}
	days := args.Days
	if days == 0 {
		days = contracts.DefaultAdviceDays
	}
	if days < contracts.MinAdviceDays || days > contracts.MaxAdviceDays {
		return contracts.RetentionAdvice{}, contracts.Errorf(contracts.KindInvalid, "days must be %d-%d, got %d", contracts.MinAdviceDays, contracts.MaxAdviceDays, args.Days)
	}
	now := s.Now()
	ver, err := s.reads.version(ctx, s.Store, uid)
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	day, err := kernel.LearnerDay(ctx, s.Store, uid)
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	key := readKey{tool: "advice", userID: uid, deckID: args.DeckID, days: days, date: day.DateString(now)}
	if v, ok := s.reads.get(key, ver); ok {
		out := v.(contracts.RetentionAdvice)
		out.Points = slices.Clone(out.Points)
		return out, nil
	}
	w, err := s.workload(ctx, uid, args.DeckID, now)
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	in := w.decks[0]
	sec := contracts.DefaultSecondsPerReview
	if meanMs, n, err := s.Store.Reviews().AverageDuration(ctx, uid, now.AddDate(0, 0, -30)); err != nil {
		return contracts.RetentionAdvice{}, kernel.Fail(err)
	} else if n >= MinMeasuredReviews && meanMs > 0 {
		sec = meanMs / 1000
	}
	in.Days = days
	out, err := adviseRetention(in, sec, s.Sched)
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	out.DeckID, out.PresetID = args.DeckID, in.Settings.PresetID
	s.reads.put(key, ver, out)
	out.Points = slices.Clone(out.Points)
	return out, nil
}

// adviseRetention is the advice for one deck's simulation input (its
// Days, cards, new cards and settings), at sec seconds a review: the
// points of contracts.AdvisorRetentions, the current retention and the
// recommended one, ascending, and the recommendation. An error is the
// scheduler's.
func adviseRetention(in SimInput, sec float64, sched ports.Scheduler) (contracts.RetentionAdvice, error) {
	a := advisor{in: advisorInput(in), sec: sec, sched: sched, seen: map[int]advicePoint{}}
	out := contracts.RetentionAdvice{Days: in.Days, NewCardsPerDay: in.NewPerDay, SecondsPerReview: round(sec, 2),
		Current: in.Settings.DesiredRetention}
	shown := slices.Clone(contracts.AdvisorRetentions)
	if c := in.Settings.DesiredRetention; c > 0 && c < 1 {
		shown = append(shown, c)
	}
	best, err := minimumRetention(shown, func(r float64) (float64, error) {
		p, err := a.eval(r)
		return p.cost, err
	})
	if err != nil {
		return contracts.RetentionAdvice{}, err
	}
	out.Recommended = best
	for _, r := range append(shown, best) {
		p, err := a.eval(r)
		if err != nil {
			return contracts.RetentionAdvice{}, err
		}
		if !slices.ContainsFunc(out.Points, func(q contracts.RetentionPoint) bool { return q.DesiredRetention == p.DesiredRetention }) {
			out.Points = append(out.Points, p.RetentionPoint)
		}
	}
	slices.SortFunc(out.Points, func(x, y contracts.RetentionPoint) int { return cmpFloat(x.DesiredRetention, y.DesiredRetention) })
	return out, nil
}

// minimumRetention searches contracts.AdviceLowest-AdviceHighest for the
// retention of least cost: it costs each of grid (which holds the range's
// twentieths, the coarse grid) and of the grid's retentions in the range
// takes the cheapest, then costs every hundredth within advisorRefine
// hundredths of it and returns the cheapest retention costed in the range
// (the lower of a tie). A cost of +Inf is never the least; when every
// cost is, the answer is contracts.DefaultDesiredRetention. cost is
// called once per retention (to the thousandth); its error stops the
// search.
func minimumRetention(grid []float64, cost func(float64) (float64, error)) (float64, error) {
	seen := map[int]float64{}
	try := func(r float64) error {
		k := thousandths(r)
		if _, ok := seen[k]; ok {
			return nil
		}
		c, err := cost(float64(k) / 1000)
		seen[k] = c
		return err
	}
	inRange := func(k int) bool {
		return k >= thousandths(contracts.AdviceLowest) && k <= thousandths(contracts.AdviceHighest)
	}
	best := func() (int, bool) {
		b, least := 0, math.Inf(1)
		for k, c := range seen {
			if inRange(k) && (c < least || (c == least && k < b)) {
				b, least = k, c
			}
		}
		return b, !math.IsInf(least, 1)
	}
	for k := hundredths(contracts.AdviceLowest); k <= hundredths(contracts.AdviceHighest); k += 5 {
		grid = append(grid, float64(k)/100)
	}
	for _, r := range grid {
		if err := try(r); err != nil {
			return 0, err
		}
	}
	b, ok := best()
	if !ok {
		return contracts.DefaultDesiredRetention, nil
	}
	for k := -advisorRefine; k <= advisorRefine; k++ {
		if h := (b+5)/10 + k; inRange(h * 10) {
			if err := try(float64(h) / 100); err != nil {
				return 0, err
			}
		}
	}
	b, _ = best()
	return float64(b) / 1000, nil
}

// advisorInput bounds a deck's simulation for the advisor: about
// advisorBudget simulated reviews (simulate: more runs for a small deck,
// a sample of the scheduled cards for a big one), and its new cards
// simulated one for every newStride, so that at most about advisorNew
// are.
func advisorInput(in SimInput) SimInput {
	in.Budget = advisorBudget
	total := min(in.NewCards, in.NewPerDay*in.Days)
	in.newStride = max(1, (total+advisorNew-1)/advisorNew)
	return in
}

// advisor evaluates a deck at desired retentions, each once.
type advisor struct {
	in    SimInput
	sec   float64
	sched ports.Scheduler
	seen  map[int]advicePoint // by thousandths of retention
}

// advicePoint is an evaluated retention: its point, and its exact cost
// per card memorized (+Inf when nothing is memorized).
type advicePoint struct {
	contracts.RetentionPoint
	cost float64
}

// eval simulates the deck at desired retention r (remembered).
func (a *advisor) eval(r float64) (advicePoint, error) {
	k := thousandths(r)
	if p, ok := a.seen[k]; ok {
		return p, nil
	}
	in := a.in
	in.Settings.DesiredRetention = float64(k) / 1000
	res, err := simulateAll(in, a.sched)
	if err != nil {
		return advicePoint{}, err
	}
	p := pointOf(in.Settings.DesiredRetention, res, a.sec)
	a.seen[k] = p
	return p, nil
}

// pointOf sums a simulation into a point of the advice: the reviews,
// minutes and lapses a day on average, the cards memorized at the end,
// and the cost per card memorized: the seconds of every rating, those of
// forgetting (a review's Again and the relearning steps after it) counted
// lossAversion times, over the cards memorized (reported as 0 when none
// is, and never the least).
func pointOf(r float64, res simResult, sec float64) advicePoint {
	var reviews, lapses, relearning float64
	for _, d := range res.days {
		reviews += d.Reviews
		lapses += d.Lapses
		relearning += d.Relearning
	}
	n := float64(max(len(res.days), 1))
	p := advicePoint{RetentionPoint: contracts.RetentionPoint{
		DesiredRetention: r, ReviewsPerDay: round(reviews/n, 1), MinutesPerDay: round(reviews/n*sec/60, 1),
		LapsesPerDay: round(lapses/n, 1), Memorized: round(res.memorized, 1),
	}, cost: math.Inf(1)}
	if res.memorized >= 0.5 {
		p.cost = (reviews + (lossAversion-1)*(lapses+relearning)) * sec / res.memorized
		p.CostPerMemorized = round(p.cost, 2)
	}
	return p
}

// thousandths and hundredths round a retention to an integer count.
func thousandths(r float64) int { return int(math.Round(r * 1000)) }
func hundredths(r float64) int  { return int(math.Round(r * 100)) }

// cmpFloat orders two numbers.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
