// Package fsrs implements ports.Scheduler with go-fsrs v4 (FSRS-6).
//
// The scheduler is pure: the review time is always passed in, and interval
// fuzz is seeded by the library from the review time, the repetition count
// and the card's memory state, so the same inputs always give the same
// output.
//
// Days are the learner's: the library counts elapsed days between UTC
// dates, so the scheduler hands it a virtual clock on which each of the
// learner's days is one UTC date (its date, plus the time since the day's
// rollover), and maps the result back. Review-phase cards are due from the
// start of their due day in the learner's day; learning and relearning
// steps are exact instants.
package fsrs

import (
	"errors"
	"math"
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// LearningSteps are the default delays, in minutes, of the learning steps
// a new card goes through before its first interval in days.
var LearningSteps = []float64{1, 10}

// RelearningSteps are the default delays, in minutes, of the steps a
// forgotten card goes through before it returns to the review phase.
var RelearningSteps = []float64{10}

// Scheduler schedules cards with FSRS-6 under each deck's settings (steps,
// desired retention, maximum interval, weights), with fuzz on.
type Scheduler struct {
	learning   []float64
	relearning []float64
}

var _ ports.SettingsBinder = (*Scheduler)(nil)

// New returns a scheduler whose default steps are LearningSteps and
// RelearningSteps (a deck's own steps replace them).
func New() *Scheduler {
	return &Scheduler{learning: LearningSteps, relearning: RelearningSteps}
}

// Review is ReviewOn in UTC days starting at midnight.
func (s *Scheduler) Review(state contracts.CardState, settings contracts.DeckSettings, now time.Time, rating contracts.Rating) (contracts.CardState, error) {
	return s.ReviewOn(state, settings, contracts.LearnerDay{}, now, rating)
}

// ReviewOn returns the state after rating a card at now, counting elapsed
// days in the learner's day. Zero settings fields take the defaults;
// out-of-range settings, an unknown rating or a corrupt state are invalid.
func (s *Scheduler) ReviewOn(state contracts.CardState, settings contracts.DeckSettings, day contracts.LearnerDay, now time.Time, rating contracts.Rating) (contracts.CardState, error) {
	p, err := s.preset(settings)
	if err != nil {
		return contracts.CardState{}, err
	}
	return p.ReviewOn(state, day, now, rating)
}

// Bind returns the scheduler bound to one deck's settings, checked and
// built once: a simulation reviewing thousands of cards under the same
// settings uses it instead of ReviewOn, which builds it on every review.
// Zero settings fields take the defaults; out-of-range settings are
// invalid.
func (s *Scheduler) Bind(settings contracts.DeckSettings) (ports.BoundScheduler, error) {
	return s.preset(settings)
}

// preset is Bind.
func (s *Scheduler) preset(settings contracts.DeckSettings) (*Preset, error) {
	params, err := s.params(settings)
	if err != nil {
		return nil, err
	}
	lib := gofsrs.NewFSRS(params)
	return &Preset{lib: lib, steps: stepSet{learning: params.LearningSteps, relearning: params.RelearningSteps},
		maxIvl: int(params.MaximumInterval)}, nil
}

// Preset is a scheduler bound to one deck's settings (Scheduler.Bind).
// It is read-only once built, so safe for concurrent use.
type Preset struct {
	lib    *gofsrs.FSRS
	steps  stepSet
	maxIvl int
}

// ReviewOn is Scheduler.ReviewOn under the preset's settings.
func (p *Preset) ReviewOn(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating) (contracts.CardState, error) {
	grade, err := toGrade(rating)
	if err != nil {
		return contracts.CardState{}, err
	}
	card, err := p.steps.toFSRS(state)
	if err != nil {
		return contracts.CardState{}, err
	}
	vnow := virtual(day, now)
	if !card.LastReview.IsZero() {
		card.LastReview = virtual(day, card.LastReview)
	}
	card.Due = vnow.Add(card.Due.Sub(now))
	info, err := p.lib.Next(card, vnow, grade)
	if err != nil {
		var fe *gofsrs.Error
		if errors.As(err, &fe) {
			return contracts.CardState{}, &contracts.Error{Kind: contracts.KindInvalid, Message: "the card's schedule cannot be reviewed: " + fe.Message, Err: err}
		}
		return contracts.CardState{}, contracts.Internal(err)
	}
	next := info.Card
	// The library graduates a card whose next step is a day or more: it
	// stays in its learning (or relearning) step instead, due from the
	// start of the step's day in the learner's day (interday learning,
	// as Anki). Only a step leaves steps remaining in a review state.
	stepDays := 0
	if next.State == gofsrs.Review && next.RemainingSteps > 0 {
		next.State, stepDays = gofsrs.Learning, max(int(next.ScheduledDays), 1)
		if state.Phase == contracts.PhaseReview || state.Phase == contracts.PhaseRelearning {
			next.State = gofsrs.Relearning
		}
		next.ScheduledDays = 0
	}
	next.Due = now.Add(next.Due.Sub(vnow))
	next.LastReview = now
	out, err := p.steps.fromFSRS(next)
	if err != nil {
		return contracts.CardState{}, err
	}
	switch {
	case out.Phase == contracts.PhaseReview:
		p.dueIn(&out, day, now)
	case stepDays > 0:
		out.Due = day.StartOfDate(day.Date(now).AddDate(0, 0, stepDays))
	}
	return out, nil
}

// dueIn clamps a review-phase state's interval to 1 day and the maximum,
// and makes it due from the start of that day in the learner's day.
func (p *Preset) dueIn(out *contracts.CardState, day contracts.LearnerDay, now time.Time) {
	out.ScheduledDays = min(max(out.ScheduledDays, 1), p.maxIvl)
	out.Due = day.StartOfDate(day.Date(now).AddDate(0, 0, out.ScheduledDays))
}

// virtual maps t to the library's clock: the UTC date is the learner's
// date of t and the time of day the time since that day began (at most
// just under 24 hours, also on a 25-hour day).
func virtual(day contracts.LearnerDay, t time.Time) time.Time {
	date := day.Date(t)
	since := t.Sub(day.StartOfDate(date))
	since = min(max(since, 0), 24*time.Hour-time.Millisecond)
	return date.Add(since)
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
	if settings.Weights != nil {
		if err := contracts.CheckWeights(settings.Weights); err != nil {
			return gofsrs.Parameters{}, err
		}
		copy(p.W[:], settings.Weights)
	}
	p.RequestRetention = retention
	p.MaximumInterval = float64(maxIvl)
	p.EnableFuzz = true
	p.EnableShortTerm = true
	p.LearningSteps = stepsOr(settings.LearningSteps, s.learning)
	p.RelearningSteps = stepsOr(settings.RelearningSteps, s.relearning)
	if err := contracts.CheckSteps("learningSteps", p.LearningSteps); err != nil {
		return gofsrs.Parameters{}, err
	}
	if err := contracts.CheckSteps("relearningSteps", p.RelearningSteps); err != nil {
		return gofsrs.Parameters{}, err
	}
	return p, nil
}

// stepsOr returns a copy of steps, or of def when steps is nil.
func stepsOr(steps, def []float64) []float64 {
	if steps == nil {
		steps = def
	}
	return append([]float64{}, steps...)
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
