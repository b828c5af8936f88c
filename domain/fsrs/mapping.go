package fsrs

import (
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"

	"github.com/takhtabush/takhtabush/contracts"
)

// The mapping between contracts.CardState and the library's Card.
//
// contracts.CardState.Step is the index of the learning (or relearning)
// step the card has reached; the library counts the steps remaining
// instead. With this scheduler's steps, Step = len(steps) - RemainingSteps
// for learning and relearning cards, and 0 for new and review cards. The
// mapping is lossless on that domain: ToFSRS then FromFSRS (and the reverse)
// returns the input unchanged. Anything outside it is a corrupt state.

// stepSet is the steps a deck's cards walk through.
type stepSet struct{ learning, relearning []float64 }

// ToFSRS converts a stored card state to the library's card under the
// default steps.
func (s *Scheduler) ToFSRS(st contracts.CardState) (gofsrs.Card, error) {
	return stepSet{s.learning, s.relearning}.toFSRS(st)
}

// FromFSRS converts the library's card to a stored card state under the
// default steps.
func (s *Scheduler) FromFSRS(c gofsrs.Card) (contracts.CardState, error) {
	return stepSet{s.learning, s.relearning}.fromFSRS(c)
}

// toFSRS converts a stored card state to the library's card. A step
// beyond the deck's steps (its steps were shortened since) is the last.
func (s stepSet) toFSRS(st contracts.CardState) (gofsrs.Card, error) {
	var c gofsrs.Card
	switch st.Phase {
	case contracts.PhaseNew:
		c.State = gofsrs.New
	case contracts.PhaseLearning:
		c.State = gofsrs.Learning
	case contracts.PhaseReview:
		c.State = gofsrs.Review
	case contracts.PhaseRelearning:
		c.State = gofsrs.Relearning
	default:
		return c, corrupt("unknown phase %q", st.Phase)
	}
	if st.ScheduledDays < 0 || st.Reps < 0 || st.Lapses < 0 {
		return c, corrupt("negative counter (scheduledDays %d, reps %d, lapses %d)", st.ScheduledDays, st.Reps, st.Lapses)
	}
	steps := s.stepsOf(st.Phase)
	if st.Step < 0 {
		return c, corrupt("step %d is negative", st.Step)
	}
	st.Step = min(st.Step, len(steps))
	c.Due = st.Due
	c.Stability = st.Stability
	c.Difficulty = st.Difficulty
	c.ScheduledDays = uint64(st.ScheduledDays)
	c.Reps = uint64(st.Reps)
	c.Lapses = uint64(st.Lapses)
	c.RemainingSteps = len(steps) - st.Step
	if st.LastReview != nil {
		if st.LastReview.IsZero() {
			return c, corrupt("lastReview is set to the zero time")
		}
		c.LastReview = *st.LastReview
	}
	return c, nil
}

// fromFSRS converts the library's card to a stored card state.
func (s stepSet) fromFSRS(c gofsrs.Card) (contracts.CardState, error) {
	var st contracts.CardState
	switch c.State {
	case gofsrs.New:
		st.Phase = contracts.PhaseNew
	case gofsrs.Learning:
		st.Phase = contracts.PhaseLearning
	case gofsrs.Review:
		st.Phase = contracts.PhaseReview
	case gofsrs.Relearning:
		st.Phase = contracts.PhaseRelearning
	default:
		return st, corrupt("unknown library state %d", c.State)
	}
	steps := s.stepsOf(st.Phase)
	if c.RemainingSteps < 0 || c.RemainingSteps > len(steps) {
		return st, corrupt("remaining steps %d out of range 0-%d for phase %s", c.RemainingSteps, len(steps), st.Phase)
	}
	const maxInt = int(^uint(0) >> 1)
	if c.ScheduledDays > uint64(maxInt) || c.Reps > uint64(maxInt) || c.Lapses > uint64(maxInt) {
		return st, corrupt("counter overflow")
	}
	st.Due = c.Due
	st.Stability = c.Stability
	st.Difficulty = c.Difficulty
	st.ScheduledDays = int(c.ScheduledDays)
	st.Reps = int(c.Reps)
	st.Lapses = int(c.Lapses)
	st.Step = len(steps) - c.RemainingSteps
	if !c.LastReview.IsZero() {
		lr := c.LastReview
		st.LastReview = &lr
	}
	return st, nil
}

// stepsOf returns the steps a phase walks through: none for new and review
// cards.
func (s stepSet) stepsOf(p contracts.Phase) []float64 {
	switch p {
	case contracts.PhaseLearning:
		return s.learning
	case contracts.PhaseRelearning:
		return s.relearning
	}
	return nil
}

// NewState returns the state of a card that was never reviewed, due at now.
func NewState(now time.Time) contracts.CardState {
	return contracts.CardState{Phase: contracts.PhaseNew, Due: now}
}

func corrupt(format string, args ...any) error {
	return contracts.Errorf(contracts.KindInvalid, "corrupt card state: "+format, args...)
}
