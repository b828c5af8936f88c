// Package learnersim simulates a learner's review log for the tests of
// the FSRS optimiser: the app schedules each card with a deck's settings,
// while the learner remembers as other FSRS weights say, so weights fitted
// to the log can predict it better than the deck's.
package learnersim

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Weights are the simulated learner's memory: much weaker first memories
// and slower growth than the default weights assume.
var Weights = func() []float64 {
	w := slices.Clone(contracts.DefaultWeights)
	w[0], w[1], w[2], w[3] = 0.05, 0.2, 0.5, 2
	w[8], w[20] = 0.8, 0.5
	return w
}()

// Config is one simulation.
type Config struct {
	UserID  string
	Deck    contracts.Deck // its settings schedule the cards
	CardIDs []string       // the deck's cards, all new before
	Days    int            // study days, ending the day before End
	End     time.Time
	Seed    uint64
	NewID   func() string // review log ids
	// Day is the learner's day (the zero value: UTC days from midnight).
	Day contracts.LearnerDay
}

// card is one card in a run: its schedule as the app keeps it and the
// learner's memory of it.
type card struct {
	id       string
	app, mem contracts.CardState
	started  bool
	counted  int
}

// Log simulates the days and returns the review log, oldest first, and
// how many of its ratings the optimiser should read: a card's ratings
// from its first as new; the cram ratings and manual reschedules it adds
// at the end are not counted, and after the reset to new it adds, only
// the ratings since. Ten new cards start each day; same-day learning
// steps come back until the card leaves them. An error is the
// scheduler's.
func Log(cfg Config, sched ports.Scheduler) ([]ports.ReviewLog, int, error) {
	app := cfg.Deck.Settings.WithDefaults()
	mem := app
	mem.Weights = Weights
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	day := cfg.Day
	cards := make([]*card, len(cfg.CardIDs))
	for i, id := range cfg.CardIDs {
		cards[i] = &card{id: id, app: contracts.CardState{Phase: contracts.PhaseNew}, mem: contracts.CardState{Phase: contracts.PhaseNew}}
	}
	var logs []ports.ReviewLog
	add := func(c *card, r contracts.Rating, at time.Time, kind string, next contracts.CardState) {
		logs = append(logs, ports.ReviewLog{ID: cfg.NewID(), UserID: cfg.UserID, CardID: c.id, DeckID: cfg.Deck.ID, Rating: r,
			PrevPhase: c.app.Phase, State: next, ReviewedAt: at, Kind: kind, Day: int(day.Date(at).Unix() / 86400)})
	}
	review := func(c *card, at time.Time) error {
		r := rate(rng, c, day, at)
		nextApp, err := sched.ReviewOn(c.app, app, day, at, r)
		if err != nil {
			return err
		}
		nextMem, err := sched.ReviewOn(c.mem, mem, day, at, r)
		if err != nil {
			return err
		}
		add(c, r, at, ports.ReviewKindReview, nextApp)
		c.app, c.mem = nextApp, nextMem
		c.counted++
		return nil
	}
	first := day.Date(cfg.End).AddDate(0, 0, -cfg.Days)
	for d := range cfg.Days {
		dayEnd := day.StartOfDate(first.AddDate(0, 0, d+1))
		at := day.StartOfDate(first.AddDate(0, 0, d)).Add(6 * time.Hour)
		started := 0
		for _, c := range cards {
			due := c.started && c.app.Due.Before(dayEnd)
			if !c.started && started < 10 {
				c.started, due = true, true
				started++
			}
			for steps := 0; due && steps < 20; steps++ {
				if c.app.Due.After(at) {
					at = c.app.Due
				}
				if err := review(c, at); err != nil {
					return nil, 0, err
				}
				at = at.Add(10 * time.Second)
				due = (c.app.Phase == contracts.PhaseLearning || c.app.Phase == contracts.PhaseRelearning) && c.app.Due.Before(dayEnd)
			}
		}
	}
	// Cram ratings and a reschedule are not fed to FSRS; a reset to new
	// starts the card's history over.
	at := day.StartOfDate(day.Date(cfg.End)).Add(time.Hour)
	for _, c := range cards[:min(5, len(cards))] {
		add(c, contracts.RatingAgain, at, ports.ReviewKindCram, c.app)
		add(c, contracts.RatingGood, at.Add(time.Second), ports.ReviewKindManual, c.app)
	}
	if len(cards) > 5 {
		reset := cards[5]
		add(reset, contracts.RatingGood, at.Add(2*time.Second), ports.ReviewKindManual, contracts.CardState{Phase: contracts.PhaseNew, Due: at})
		reset.app, reset.mem, reset.counted = contracts.CardState{Phase: contracts.PhaseNew}, contracts.CardState{Phase: contracts.PhaseNew}, 0
		if err := review(reset, at.Add(time.Minute)); err != nil {
			return nil, 0, err
		}
	}
	want := 0
	for _, c := range cards {
		want += c.counted
	}
	return logs, want, nil
}

// rate is the learner's rating: a new card's first from a fixed mix; a
// card it forgot (by its memory's recall probability) again, else mostly
// good and sometimes hard.
func rate(rng *rand.Rand, c *card, day contracts.LearnerDay, at time.Time) contracts.Rating {
	switch {
	case c.app.Phase == contracts.PhaseNew:
		return []contracts.Rating{contracts.RatingAgain, contracts.RatingHard, contracts.RatingGood, contracts.RatingGood, contracts.RatingEasy}[rng.IntN(5)]
	case c.mem.LastReview == nil || c.mem.Stability <= 0:
		return contracts.RatingGood
	}
	decay := Weights[20]
	elapsed := float64(max(day.DaysBetween(*c.mem.LastReview, at), 0))
	recall := math.Pow(1+(math.Pow(0.9, -1/decay)-1)*elapsed/c.mem.Stability, -decay)
	switch {
	case rng.Float64() >= recall:
		return contracts.RatingAgain
	case rng.IntN(10) == 0:
		return contracts.RatingHard
	}
	return contracts.RatingGood
}
