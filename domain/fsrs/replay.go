package fsrs

import (
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Entry is one entry of a card's review history, for Replay: a rating at
// a time, or a reset (Anki's Forget: the card became new again).
type Entry struct {
	At     time.Time
	Rating contracts.Rating
	Reset  bool
}

// Replay computes a card's memory state from its review history, in time
// order, under a deck's settings, counting elapsed days in the learner's
// day (sched.ReviewOn). A reset entry starts the history over: the card
// is new again and only the ratings after the last reset count, as in
// Anki and fsrs-rs. It returns the state after the last rating and the
// number of ratings replayed since the last reset (0: no memory state).
// Invalid when a rating is unknown or the settings are.
func Replay(sched ports.Scheduler, set contracts.DeckSettings, day contracts.LearnerDay, history []Entry) (contracts.CardState, int, error) {
	var st contracts.CardState
	n := 0
	for _, e := range history {
		if e.Reset || n == 0 {
			st = NewState(e.At)
			n = 0
			if e.Reset {
				continue
			}
		}
		next, err := sched.ReviewOn(st, set, day, e.At, e.Rating)
		if err != nil {
			return contracts.CardState{}, 0, err
		}
		st, n = next, n+1
	}
	return st, n, nil
}
