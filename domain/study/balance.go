package study

import (
	"context"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Load balancing (issue 28 §2): a review-phase interval takes the day of
// its fuzz range fsrs.Balance picks, weighted against the review cards of
// the card's deck already due each day, in the learner's day, in reviews and in the workload simulation behind
// the plan alike, so the plan forecasts what reviews do. A deck is the
// unit, as the plan simulates each deck under its own preset.

// ChoosingScheduler is a bound scheduler that lets the caller pick the
// day inside an interval's fuzz range (fsrs.Preset).
type ChoosingScheduler interface {
	ReviewChoosing(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, choose fsrs.Chooser) (contracts.CardState, error)
	ReviewSpan(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating) (lo, hi int, ok bool)
}

// reviewBalanced is the scheduler's ReviewOn with the interval's day
// balanced against the deck's load (balancedReviews of one rating).
func reviewBalanced(ctx context.Context, tx ports.Stores, sched ports.Scheduler, uid string, card contracts.Card, deck contracts.Deck,
	day contracts.LearnerDay, now time.Time, rating contracts.Rating) (contracts.CardState, error) {
	out, err := balancedReviews(ctx, tx, sched, uid, card, deck, day, now, rating)
	if err != nil {
		return contracts.CardState{}, err
	}
	return out[0], nil
}

// balancedReviews is the scheduler's ReviewOn of card for each rating,
// with the interval's day balanced against the deck's load: the days the
// choices may take are counted in one read (in the caller's transaction),
// and the draw is seeded from the card, its repetitions and now, so a
// rating previewed and then given at the same instant picks the same day.
// A scheduler that cannot choose, or a review that picks no day (steps,
// lapses, short intervals), is ReviewOn.
func balancedReviews(ctx context.Context, tx ports.Stores, sched ports.Scheduler, uid string, card contracts.Card, deck contracts.Deck,
	day contracts.LearnerDay, now time.Time, ratings ...contracts.Rating) ([]contracts.CardState, error) {
	out := make([]contracts.CardState, len(ratings))
	c, bound := chooser(sched, deck.Settings)
	lo, hi, any := 0, 0, false
	for _, r := range ratings {
		if !bound {
			break
		}
		if l, h, ok := c.ReviewSpan(card.State, day, now, r); ok {
			if !any {
				lo, hi = l, h
			}
			lo, hi, any = min(lo, l), max(hi, h), true
		}
	}
	var load func(int) int
	if any {
		var err error
		if load, err = dueByDay(ctx, tx, uid, deck.ID, day, now, lo, hi); err != nil {
			return nil, err
		}
	}
	for i, r := range ratings {
		var err error
		if any {
			out[i], err = c.ReviewChoosing(card.State, day, now, r, fsrs.Balance(draw(card.ID, card.State.Reps, now), load, EasyWeight(deck.Settings.EasyDays, day.Date(now))))
		} else {
			out[i], err = sched.ReviewOn(card.State, deck.Settings, day, now, r)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// chooser binds sched to the settings when it can choose the day.
func chooser(sched ports.Scheduler, set contracts.DeckSettings) (ChoosingScheduler, bool) {
	b, ok := sched.(ports.SettingsBinder)
	if !ok {
		return nil, false
	}
	bound, err := b.Bind(set)
	if err != nil {
		return nil, false // ReviewOn says why
	}
	c, ok := bound.(ChoosingScheduler)
	return c, ok
}

// dueByDay reads how many of the deck's scheduled cards are due on each
// learner's day lo to hi days after now's, in one query, as a load
// function for fsrs.Balance (0 outside the range).
func dueByDay(ctx context.Context, tx ports.Stores, uid, deckID string, day contracts.LearnerDay, now time.Time, lo, hi int) (func(int) int, error) {
	today := day.Date(now)
	// Bucket 0 holds everything due before day lo: it is left out.
	bounds := make([]time.Time, 0, hi-lo+3)
	bounds = append(bounds, day.StartOfDate(today.AddDate(0, 0, lo-1)))
	for d := lo; d <= hi+1; d++ {
		bounds = append(bounds, day.StartOfDate(today.AddDate(0, 0, d)))
	}
	counts, err := tx.Cards().DueCounts(ctx, uid, deckID, bounds)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	return func(d int) int {
		if d < lo || d > hi {
			return 0
		}
		return counts[d-lo+1]
	}, nil
}

// draw is a review's draw for fsrs.Balance, uniform in [0, 1): a hash of
// the card, its repetitions and the review's instant.
func draw(cardID string, reps int, now time.Time) float64 {
	h := fnv.New64a()
	h.Write([]byte(cardID))
	h.Write([]byte(strconv.Itoa(reps) + "/" + strconv.FormatInt(now.UnixNano(), 10)))
	return float64(h.Sum64()>>11) / (1 << 53)
}

// EasyWeight is the weight fsrs.Balance gives the day d days after the
// date today under the easy days: the square of the weekday's share of a
// normal day's load, since balancing levels the load against the square
// of the day's count, so a day of share s settles at about s of a normal
// day's reviews. Nil without easy days.
func EasyWeight(easy []float64, today time.Time) func(int) float64 {
	if easy == nil {
		return nil
	}
	return func(d int) float64 {
		s := contracts.EasyShare(easy, today.AddDate(0, 0, d))
		return s * s
	}
}
