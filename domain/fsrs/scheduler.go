// Package fsrs implements ports.Scheduler with go-fsrs v4 (FSRS-6).
//
// The scheduler is pure: the review time is always passed in, and interval
// fuzz is seeded by the library from the review time, the repetition count
// and the card's memory state, so the same inputs always give the same
// output.
package fsrs

import (
	"errors"
	"math"
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// LearningSteps are the delays, in minutes, of the learning steps a new
// card goes through before its first interval in days.
var LearningSteps = []float64{1, 10}

// RelearningSteps are the delays, in minutes, of the steps a forgotten card
// goes through before it returns to the review phase.
var RelearningSteps = []float64{10}

// Scheduler schedules cards with FSRS-6 under each deck's desired
// retention and maximum interval, with fuzz on.
type Scheduler struct {
	learning   []float64
	relearning []float64
}

var _ ports.Scheduler = (*Scheduler)(nil)

// New returns a scheduler with the default learning and relearning steps.
func New() *Scheduler {
	return &Scheduler{learning: LearningSteps, relearning: RelearningSteps}
}

// Review returns the state after rating a card at now. Zero settings fields
// take the contracts defaults; out-of-range settings, an unknown rating or a
// corrupt state are invalid.
func (s *Scheduler) Review(state contracts.CardState, settings contracts.DeckSettings, now time.Time, rating contracts.Rating) (contracts.CardState, error) {
	grade, err := toGrade(rating)
	if err != nil {
		return contracts.CardState{}, err
	}
	params, err := s.params(settings)
	if err != nil {
		return contracts.CardState{}, err
	}
	card, err := s.ToFSRS(state)
	if err != nil {
		return contracts.CardState{}, err
	}
	info, err := gofsrs.NewFSRS(params).Next(card, now, grade)
	if err != nil {
		var fe *gofsrs.Error
		if errors.As(err, &fe) {
			return contracts.CardState{}, &contracts.Error{Kind: contracts.KindInvalid, Message: "the card's schedule cannot be reviewed: " + fe.Message, Err: err}
		}
		return contracts.CardState{}, contracts.Internal(err)
	}
	return s.FromFSRS(info.Card)
}

// params builds the library parameters for a deck. The library silently
// falls back to its defaults for invalid parameters, so they are checked
// here first.
func (s *Scheduler) params(settings contracts.DeckSettings) (gofsrs.Parameters, error) {
	retention := settings.DesiredRetention
	if retention == 0 {
		retention = contracts.DefaultDesiredRetention
	}
	maxIvl := settings.MaximumIntervalDays
	if maxIvl == 0 {
		maxIvl = contracts.DefaultMaximumIntervalDays
	}
	if math.IsNaN(retention) || retention <= 0 || retention >= 1 {
		return gofsrs.Parameters{}, contracts.Errorf(contracts.KindInvalid, "desired retention must be above 0 and below 1, got %v", retention)
	}
	if maxIvl < 1 || maxIvl > contracts.DefaultMaximumIntervalDays {
		return gofsrs.Parameters{}, contracts.Errorf(contracts.KindInvalid, "maximum interval must be 1-%d days, got %d", contracts.DefaultMaximumIntervalDays, maxIvl)
	}
	p := gofsrs.DefaultParam()
	p.RequestRetention = retention
	p.MaximumInterval = float64(maxIvl)
	p.EnableFuzz = true
	p.EnableShortTerm = true
	p.LearningSteps = append([]float64(nil), s.learning...)
	p.RelearningSteps = append([]float64(nil), s.relearning...)
	return p, nil
}

func toGrade(r contracts.Rating) (gofsrs.Rating, error) {
	switch r {
	case contracts.RatingAgain:
		return gofsrs.Again, nil
	case contracts.RatingHard:
		return gofsrs.Hard, nil
	case contracts.RatingGood:
		return gofsrs.Good, nil
	case contracts.RatingEasy:
		return gofsrs.Easy, nil
	}
	return 0, contracts.Errorf(contracts.KindInvalid, "rating must be one of again, hard, good, easy; got %q", r)
}
