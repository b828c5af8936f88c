package fsrs

import (
	"math"
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"

	"github.com/takhtabush/takhtabush/contracts"
)

// minutesPerDay is the length of a step from which it is an interday
// step, due by the learner's day.
const minutesPerDay = 1440

// fuzzRanges is the library's interval fuzz table.
var fuzzRanges = gofsrs.FuzzRanges()

// ReviewFuzzed is ReviewOn with the interval fuzz drawn by the caller: u,
// uniform in [0, 1), takes the place of the library's draw (seeded from
// the review time, the repetition count and the memory state, which costs
// more than the rest of a review). For a review-phase card reviewed a day
// or more after its last review, the usual case in a simulation, it
// computes the next state from the library's memory model alone, without
// building the library's per-review scheduler: the same stability,
// difficulty, phase, step and interval as the library with that draw
// (TestReviewFuzzedMatchesLibrary). Any other review is ReviewOn, fuzzed
// by the library.
func (p *Preset) ReviewFuzzed(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, u float64) (contracts.CardState, error) {
	return p.ReviewChoosing(state, day, now, rating, Uniform(u))
}

// Chooser picks a review interval, in days, from lo to hi (both
// included, lo <= hi): the fuzz range of the interval FSRS computed.
type Chooser func(lo, hi int) int

// Uniform is the library's fuzz as a Chooser: the draw u, uniform in
// [0, 1), picks a day of the range with equal chances.
func Uniform(u float64) Chooser {
	return func(lo, hi int) int { return lo + int(math.Floor(u*float64(hi-lo+1))) }
}

// ReviewChoosing is ReviewFuzzed with the day inside each interval's fuzz
// range picked by choose (Balance picks the least loaded one) for a
// review-phase card reviewed a day or more after its last review, and for
// a new, learning or relearning card entering the review phase (its
// first interval); any other review is ReviewOn, fuzzed by the library. An interval choose
// returns outside its range is clamped into it.
func (p *Preset) ReviewChoosing(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, choose Chooser) (contracts.CardState, error) {
	if state.Phase != contracts.PhaseReview || state.LastReview == nil || state.Reps < 0 || state.Lapses < 0 ||
		state.ScheduledDays < 0 || state.Step < 0 || !finite(state.Stability) || state.Stability < 0.001 ||
		!finite(state.Difficulty) || state.Difficulty < 1 {
		return p.graduateChoosing(state, day, now, rating, choose)
	}
	elapsed := day.DaysBetween(*state.LastReview, now)
	if elapsed < 1 {
		return p.ReviewOn(state, day, now, rating)
	}
	lib := &p.lib.Parameters
	mem0 := &gofsrs.MemoryState{Stability: state.Stability, Difficulty: state.Difficulty}
	// next is the library's state after grade (only the grades this
	// rating's interval depends on are computed).
	next := func(grade gofsrs.Rating) gofsrs.ItemState {
		return lib.NextState(mem0, lib.RequestRetention, uint64(elapsed), grade)
	}
	at := now
	out := contracts.CardState{Phase: contracts.PhaseReview, Reps: state.Reps + 1, Lapses: state.Lapses, LastReview: &at}
	var mem gofsrs.MemoryState
	switch rating {
	case contracts.RatingAgain:
		// A lapse goes to the first relearning step (every deck has one,
		// contracts.CheckSteps); one of a day or more is ReviewOn's.
		if p.steps.relearning[0] >= minutesPerDay {
			return p.ReviewOn(state, day, now, rating)
		}
		mem = next(gofsrs.Again).Memory
		if !finite(mem.Stability) || mem.Stability < 0.001 || !finite(mem.Difficulty) || mem.Difficulty < 1 {
			return p.ReviewOn(state, day, now, rating) // the library's error
		}
		out.Lapses++
		out.Phase, out.Due = contracts.PhaseRelearning, now.Add(time.Duration(p.steps.relearning[0]*float64(time.Minute)))
		out.Stability, out.Difficulty = mem.Stability, mem.Difficulty
		return out, nil
	case contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy:
		h, g := next(gofsrs.Hard), next(gofsrs.Good)
		hard := p.interval(h.Interval, elapsed, choose)
		good := p.interval(g.Interval, elapsed, choose)
		hard = min(hard, good)
		good = max(good, hard+1)
		switch rating {
		case contracts.RatingHard:
			mem, out.ScheduledDays = h.Memory, int(hard)
		case contracts.RatingGood:
			mem, out.ScheduledDays = g.Memory, int(good)
		default:
			e := next(gofsrs.Easy)
			mem, out.ScheduledDays = e.Memory, int(max(p.interval(e.Interval, elapsed, choose), good+1))
		}
	default:
		return p.ReviewOn(state, day, now, rating) // invalid: ReviewOn says why
	}
	if !finite(mem.Stability) || mem.Stability < 0.001 || !finite(mem.Difficulty) || mem.Difficulty < 1 {
		return p.ReviewOn(state, day, now, rating) // the library's error
	}
	out.Stability, out.Difficulty = mem.Stability, mem.Difficulty
	p.dueIn(&out, day, now)
	return out, nil
}

// interval is the library's interval of a raw interval in days, rounded,
// within 1 day and the maximum, fuzzed: the day choose picks inside the
// library's fuzz range (the rounded interval alone when fuzz is off or
// the interval is under 2.5 days).
func (p *Preset) interval(raw float64, elapsed int, choose Chooser) float64 {
	lo, hi := p.fuzzRange(raw, elapsed)
	if lo == hi {
		return float64(lo)
	}
	return float64(min(max(choose(lo, hi), lo), hi))
}

// fuzzRange is the library's fuzz range of a raw interval in days.
func (p *Preset) fuzzRange(raw float64, elapsed int) (lo, hi int) {
	maxIvl := p.lib.MaximumInterval
	ivl := max(min(math.Round(raw), maxIvl), 1)
	if !p.lib.EnableFuzz || ivl < 2.5 {
		return int(ivl), int(ivl)
	}
	delta := 1.0
	for _, r := range fuzzRanges {
		delta += r.Factor * max(min(ivl, r.End)-r.Start, 0)
	}
	ivl = min(ivl, maxIvl)
	l := max(2, math.Round(ivl-delta))
	h := min(math.Round(ivl+delta), maxIvl)
	if ivl > float64(elapsed) {
		l = max(l, float64(elapsed)+1)
	}
	l = min(l, h)
	return int(l), int(h)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// graduateChoosing is ReviewOn with the interval of a card entering the
// review phase from a new, learning or relearning one picked by choose
// inside the library's fuzz range of it (the library's graduation: one
// interval from the new stability, fuzzed with the days since the last
// review, none for a new card). Any other outcome is ReviewOn's.
func (p *Preset) graduateChoosing(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, choose Chooser) (contracts.CardState, error) {
	out, err := p.ReviewOn(state, day, now, rating)
	if err != nil || out.Phase != contracts.PhaseReview || state.Phase == contracts.PhaseReview || !finite(out.Stability) {
		return out, err
	}
	elapsed := 0
	if state.Phase != contracts.PhaseNew && state.LastReview != nil {
		elapsed = max(day.DaysBetween(*state.LastReview, now), 0)
	}
	out.ScheduledDays = int(p.interval(p.rawInterval(out.Stability), elapsed, choose))
	p.dueIn(&out, day, now)
	return out, nil
}

// rawInterval is the library's interval, in days before rounding, at
// which a card of stability s falls to the desired retention.
func (p *Preset) rawInterval(s float64) float64 {
	lib := &p.lib.Parameters
	decay := -lib.W[20]
	factor := math.Pow(0.9, 1/decay) - 1
	s = min(max(s, 0.001), 36500)
	return s / factor * (math.Pow(lib.RequestRetention, 1/decay) - 1)
}
