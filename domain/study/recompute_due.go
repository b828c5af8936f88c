package study

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// Reschedule cards on change (issue 28 §1, a preset option, off by
// default as in Anki): when new weights replay a card's memory state, a
// review card's due date also moves to the interval of its new stability,
// counted from its last review (today at the earliest), the day inside
// the interval's fuzz range balanced against the cards of its deck due
// each day and the preset's easy days, as a review's.

// memoryUpdate is a card of a recompute page with the state to store.
type memoryUpdate struct {
	card ports.CardRow
	next contracts.CardState
}

// reschedulingScheduler is a bound scheduler that recomputes a review
// card's interval from its stability (fsrs.Preset).
type reschedulingScheduler interface {
	Rescheduled(state contracts.CardState, day contracts.LearnerDay, now time.Time, choose fsrs.Chooser) (contracts.CardState, bool)
}

// rescheduleDue moves the due dates of a page's review cards (ups, with
// their new memory states) to their new intervals. The load of each deck
// over the days the cards may take is read in one query per deck, then
// follows each move, so cards moved together spread as reviews do.
func rescheduleDue(ctx context.Context, tx ports.Stores, sched ports.Scheduler, uid string, set contracts.DeckSettings,
	day contracts.LearnerDay, now time.Time, ups []memoryUpdate) error {
	b, ok := sched.(ports.SettingsBinder)
	if !ok {
		return nil
	}
	bound, err := b.Bind(set)
	if err != nil {
		return err
	}
	r, ok := bound.(reschedulingScheduler)
	if !ok {
		return nil
	}
	// Each deck's window of days from today the cards may take.
	type window struct{ lo, hi int }
	windows := map[string]window{}
	for _, u := range ups {
		lo, hi, asked := 0, 0, false
		r.Rescheduled(u.next, day, now, func(l, h int) int { lo, hi, asked = l, h, true; return l })
		if !asked {
			continue
		}
		last := day.DaysBetween(now, *u.next.LastReview) // 0 or less: the last review's day from today
		w, seen := windows[u.card.DeckID]
		lo, hi = max(last+lo, 0), max(last+hi, 0)
		if seen {
			lo, hi = min(lo, w.lo), max(hi, w.hi)
		}
		windows[u.card.DeckID] = window{lo, hi}
	}
	loads := make(map[string][]int, len(windows))
	for deck, w := range windows {
		load, err := dueByDay(ctx, tx, uid, deck, day, now, w.lo, w.hi)
		if err != nil {
			return err
		}
		counts := make([]int, w.hi-w.lo+1)
		for k := range counts {
			counts[k] = load(w.lo + k)
		}
		loads[deck] = counts
	}
	today := day.Date(now)
	for i := range ups {
		u := &ups[i]
		if u.next.LastReview == nil {
			continue
		}
		w, counts := windows[u.card.DeckID], loads[u.card.DeckID]
		at := func(k int) *int { // the deck's count k days from today, nil outside its window
			if k < w.lo || k > w.hi || counts == nil {
				return nil
			}
			return &counts[k-w.lo]
		}
		last := day.DaysBetween(now, *u.next.LastReview)
		load := func(d int) int {
			if n := at(max(last+d, 0)); n != nil {
				return *n
			}
			return 0
		}
		var weight func(int) float64
		if set.EasyDays != nil {
			weight = func(d int) float64 {
				s := contracts.EasyShare(set.EasyDays, today.AddDate(0, 0, max(last+d, 0)))
				return s * s
			}
		}
		next, ok := r.Rescheduled(u.next, day, now, fsrs.Balance(draw(u.card.ID, u.next.Reps, now), load, weight))
		if !ok || next.Due.Equal(u.next.Due) {
			continue
		}
		if n := at(day.DaysBetween(now, u.next.Due)); n != nil {
			*n--
		}
		if n := at(day.DaysBetween(now, next.Due)); n != nil {
			*n++
		}
		u.next = next
	}
	return nil
}
