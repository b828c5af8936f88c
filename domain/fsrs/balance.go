package fsrs

import (
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Load balancing (issue 28 §2, the approach of Anki 24.11's): a review
// interval may be any day of its fuzz range; instead of a uniform draw,
// each day is weighted by the inverse square of the reviews already due
// that day (plus one) and by the inverse of its interval (a shorter one
// is the safer choice), and the draw picks a day with those chances.
// Lightly loaded days therefore fill up first and daily counts level off,
// while the choice stays random enough that cards reviewed together do
// not all land on one day.

// Balance returns a Chooser that picks, with the draw u (uniform in
// [0, 1)), a day of the fuzz range weighted as above. load(days) is how
// many reviews are due days from the review's day; weight(days), when not
// nil, scales a day's chances (easy days: a share under 1).
func Balance(u float64, load func(days int) int, weight func(days int) float64) Chooser {
	// of is day d's weight; it is computed twice rather than kept, so a
	// choice allocates nothing (the simulation makes one per review).
	of := func(d int) float64 {
		n := float64(load(d) + 1)
		w := 1 / (n * n * float64(max(d, 1)))
		if weight != nil {
			w *= max(weight(d), 0)
		}
		return w
	}
	return func(lo, hi int) int {
		total := 0.0
		for d := lo; d <= hi; d++ {
			total += of(d)
		}
		if total <= 0 {
			return Uniform(u)(lo, hi)
		}
		x := u * total
		for d := lo; d < hi; d++ {
			w := of(d)
			if x < w {
				return d
			}
			x -= w
		}
		return hi
	}
}

// ReviewSpan returns the days, counted from the review's day, among which
// ReviewChoosing's choose may pick for this review: lo to hi, the union of
// the fuzz ranges it asks about (a Good rating also asks about Hard's, an
// Easy one about both). ok is false when the review picks no day from a
// range (a learning step, a lapse, a short interval, or an invalid
// review): then choose is not called and need not know any load.
func (p *Preset) ReviewSpan(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating) (lo, hi int, ok bool) {
	_, err := p.ReviewChoosing(state, day, now, rating, func(l, h int) int {
		if !ok {
			lo, hi, ok = l, h, true
		}
		lo, hi = min(lo, l), max(hi, h)
		return l
	})
	if err != nil {
		return 0, 0, false
	}
	return lo, hi, ok
}

// Rescheduled returns a review-phase card's state with its interval and
// due day recomputed from its stability under the preset, for the option
// "reschedule cards on change" (new weights move due dates, as Anki's):
// the interval at which the card falls to the desired retention, its day
// inside the library's fuzz range of it picked by choose (days since the
// last review), due from the start of that day in the learner's day, or
// of today when that day has passed. ok is false, and the state
// unchanged, for a card that is not in the review phase with a last
// review and a stability.
func (p *Preset) Rescheduled(state contracts.CardState, day contracts.LearnerDay, now time.Time, choose Chooser) (out contracts.CardState, ok bool) {
	if state.Phase != contracts.PhaseReview || state.LastReview == nil || !finite(state.Stability) || state.Stability <= 0 {
		return state, false
	}
	ivl := min(max(int(p.interval(p.rawInterval(state.Stability), 0, choose)), 1), p.maxIvl)
	last := day.Date(*state.LastReview)
	due := last.AddDate(0, 0, ivl)
	if today := day.Date(now); due.Before(today) {
		due = today
	}
	out = state
	out.ScheduledDays = int(due.Sub(last) / (24 * time.Hour))
	out.Due = day.StartOfDate(due)
	return out, true
}
