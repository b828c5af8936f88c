package contracts

import (
	"slices"
	"time"
)

// Deck limits and defaults.
const (
	DefaultDesiredRetention    = 0.9
	DefaultNewCardsPerDay      = 20
	DefaultReviewsPerDay       = 200
	DefaultMaximumIntervalDays = 36500
	MaxDeckNameLen             = 200
	MaxDescriptionLen          = 2000
)

// DeckSeparator joins the levels of a deck tree's names, Anki's
// convention: "Languages::German" is the deck German below Languages.
const DeckSeparator = "::"

// Deck is a named collection of cards with its own scheduling settings.
type Deck struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Settings    DeckSettings `json:"settings"`
	Counts      DeckCounts   `json:"counts"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
}

// DeckSettings are a deck's scheduling settings. Nil steps and weights
// mean the defaults; reads fill them in (see WithDefaults). The steps,
// the maximum interval, the desired retention and the weights belong to
// the deck's preset (PresetID), shared by every deck that uses it: reads
// fill them in from the preset, writes of a deck store the rest.
type DeckSettings struct {
	PresetID            string  `json:"presetId,omitempty"`  // the preset the deck uses; empty on a deck that has none yet
	DesiredRetention    float64 `json:"desiredRetention"`    // target recall probability, 0.7–0.99
	NewCardsPerDay      int     `json:"newCardsPerDay"`      // new cards introduced per learner day
	ReviewsPerDay       int     `json:"reviewsPerDay"`       // reviews (and new cards) per learner day
	MaximumIntervalDays int     `json:"maximumIntervalDays"` // longest interval the scheduler may pick
	// LearningSteps and RelearningSteps are the step delays in minutes.
	LearningSteps   []float64 `json:"learningSteps,omitempty"`
	RelearningSteps []float64 `json:"relearningSteps,omitempty"`
	// Weights are the 21 FSRS-6 parameters.
	Weights []float64 `json:"weights,omitempty"`
	// WeightsOptimizedAt is when optimize_parameters last fitted the
	// weights to the learner's reviews; nil when they were never
	// optimised or were set by hand since. Read only.
	WeightsOptimizedAt *time.Time `json:"weightsOptimizedAt,omitempty"`
	ReviewOrder        string     `json:"reviewOrder,omitempty"` // due, retrievability, overdueness, random
	NewOrder           string     `json:"newOrder,omitempty"`    // added, random
	StudyOptions
	// EasyDays and RescheduleOnChange are the preset's scheduling options
	// (issue 28); they are stored with the preset and set by update_deck,
	// and left out of a deck's JSON, whose output schema (in the default
	// tools/list) does not hold them.
	EasyDays           []float64 `json:"-"`
	RescheduleOnChange bool      `json:"-"`
}

// CheckEasyDays reports whether v is 7 shares from 0 to 1: a preset's
// easy days are, for each weekday, Monday first, the share of a normal
// day's reviews load balancing aims to give it (1 is a normal day, 0 a
// day without reviews where the fuzz range allows); nil means every day
// is normal.
func CheckEasyDays(v []float64) error {
	if len(v) != 7 {
		return Errorf(KindInvalid, "easyDays must be 7 shares, Monday first, got %d", len(v))
	}
	for i, x := range v {
		if x != x || x < 0 || x > 1 {
			return Errorf(KindInvalid, "easyDays[%d] must be 0-1, got %v", i, x)
		}
	}
	return nil
}

// NormalDays are easy days where every day is normal.
var NormalDays = []float64{1, 1, 1, 1, 1, 1, 1}

// EasyShare is the share of a normal day's reviews the easy days give the
// date's weekday (1 without easy days).
func EasyShare(easy []float64, date time.Time) float64 {
	if len(easy) != 7 {
		return 1
	}
	return easy[(int(date.Weekday())+6)%7]
}

// StudyOptions are a preset's daily-queue options (issue 27), as Anki's.
// Nil and empty fields mean the defaults; reads fill them in (see
// WithDefaults).
type StudyOptions struct {
	// BuryNew, BuryReviews and BuryInterday bury a new, review or
	// interday-learning card until the next learner's day when another
	// card of its note was studied that day, instead of showing it
	// (siblings give each other's answers away). Defaults: on, on, off.
	BuryNew      *bool `json:"buryNew,omitempty"`
	BuryReviews  *bool `json:"buryReviews,omitempty"`
	BuryInterday *bool `json:"buryInterday,omitempty"`
	// LeechThreshold is the lapse count at which a card becomes a leech,
	// and again every half of it after (default 8).
	LeechThreshold int `json:"leechThreshold,omitempty"`
	// LeechAction is what happens to a leech besides its note's
	// LeechTag: "tag" (nothing more, the default) or "suspend".
	LeechAction string `json:"leechAction,omitempty"`
	// NewMix is where new cards go in a session: "mix" (spread among the
	// reviews, the default), "first" or "last".
	NewMix string `json:"newMix,omitempty"`
}

// Preset is a named set of scheduling settings shared by the decks that
// use it.
type Preset struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Settings  PresetSettings `json:"settings"`
	Decks     int            `json:"decks"` // how many decks use it (reads only)
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// PresetSettings are the fields of DeckSettings a preset holds.
type PresetSettings struct {
	DesiredRetention    float64   `json:"desiredRetention"`
	MaximumIntervalDays int       `json:"maximumIntervalDays"`
	LearningSteps       []float64 `json:"learningSteps,omitempty"`
	RelearningSteps     []float64 `json:"relearningSteps,omitempty"`
	Weights             []float64 `json:"weights,omitempty"`
	// WeightsOptimizedAt is when optimize_parameters last fitted Weights.
	WeightsOptimizedAt *time.Time `json:"weightsOptimizedAt,omitempty"`
	StudyOptions
	EasyDays           []float64 `json:"easyDays,omitempty"`           // see DeckSettings
	RescheduleOnChange bool      `json:"rescheduleOnChange,omitempty"` // new weights also move due dates
}

// PresetOf returns the preset fields of a deck's settings.
func (s DeckSettings) PresetOf() PresetSettings {
	return PresetSettings{
		DesiredRetention: s.DesiredRetention, MaximumIntervalDays: s.MaximumIntervalDays,
		LearningSteps: s.LearningSteps, RelearningSteps: s.RelearningSteps, Weights: s.Weights,
		WeightsOptimizedAt: s.WeightsOptimizedAt, StudyOptions: s.StudyOptions,
		EasyDays: s.EasyDays, RescheduleOnChange: s.RescheduleOnChange,
	}
}

// WithPreset returns the settings with the preset's id and fields.
func (s DeckSettings) WithPreset(p Preset) DeckSettings {
	s.PresetID = p.ID
	s.DesiredRetention, s.MaximumIntervalDays = p.Settings.DesiredRetention, p.Settings.MaximumIntervalDays
	s.LearningSteps, s.RelearningSteps, s.Weights = p.Settings.LearningSteps, p.Settings.RelearningSteps, p.Settings.Weights
	s.WeightsOptimizedAt, s.StudyOptions = p.Settings.WeightsOptimizedAt, p.Settings.StudyOptions
	s.EasyDays, s.RescheduleOnChange = p.Settings.EasyDays, p.Settings.RescheduleOnChange
	return s
}

// PresetNew is the presetId update_deck takes to give a deck a copy of its
// preset for itself alone.
const PresetNew = "new"

// Review and new-card orders.
const (
	ReviewOrderDue            = "due"
	ReviewOrderRetrievability = "retrievability"
	ReviewOrderOverdueness    = "overdueness"
	ReviewOrderRandom         = "random"
	NewOrderAdded             = "added"
	NewOrderRandom            = "random"
)

// ReviewOrders and NewOrders list the orders.
var (
	ReviewOrders = []string{ReviewOrderDue, ReviewOrderRetrievability, ReviewOrderOverdueness, ReviewOrderRandom}
	NewOrders    = []string{NewOrderAdded, NewOrderRandom}
)

// DefaultLearningSteps, DefaultRelearningSteps and DefaultWeights are the
// defaults of a deck's steps (minutes) and FSRS-6 weights.
var (
	DefaultLearningSteps   = []float64{1, 10}
	DefaultRelearningSteps = []float64{10}
	DefaultWeights         = []float64{0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
		1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542}
)

// WeightBounds are the ranges of the 21 FSRS-6 weights, as the reference
// optimiser clamps them.
var WeightBounds = [21][2]float64{
	{0.001, 100}, {0.001, 100}, {0.001, 100}, {0.001, 100}, {1, 10}, {0.001, 4}, {0.001, 4}, {0.001, 0.75},
	{0, 4.5}, {0, 0.8}, {0.001, 3.5}, {0.001, 5}, {0.001, 0.25}, {0.001, 0.9}, {0, 4}, {0, 1}, {1, 6},
	{0, 2}, {0, 2}, {0, 0.8}, {0.1, 0.8},
}

// MaxSteps bounds a deck's learning or relearning steps; MaxStepMinutes
// bounds one step (30 days). A step of a day or more is an interday step:
// the card stays in learning, due from the start of the learner's day the
// step ends on (whole days; 1.5 days is 1).
const (
	MaxSteps       = 10
	MaxStepMinutes = 30 * 1440
)

// CheckWeights reports whether w holds 21 finite weights within WeightBounds.
func CheckWeights(w []float64) error {
	if len(w) != len(WeightBounds) {
		return Errorf(KindInvalid, "weights must be %d numbers (FSRS-6), got %d", len(WeightBounds), len(w))
	}
	for i, v := range w {
		b := WeightBounds[i]
		if v != v || v < b[0] || v > b[1] {
			return Errorf(KindInvalid, "weight %d must be %v-%v, got %v", i, b[0], b[1], v)
		}
	}
	return nil
}

// CheckSteps reports whether steps are 1 to MaxSteps non-decreasing delays
// of 1 to MaxStepMinutes minutes.
func CheckSteps(name string, steps []float64) error {
	if len(steps) < 1 || len(steps) > MaxSteps {
		return Errorf(KindInvalid, "%s must have 1-%d steps, got %d", name, MaxSteps, len(steps))
	}
	for i, v := range steps {
		if v != v || v < 1 || v > MaxStepMinutes {
			return Errorf(KindInvalid, "%s[%d] must be 1-%d minutes, got %v", name, i, MaxStepMinutes, v)
		}
		if i > 0 && v < steps[i-1] {
			return Errorf(KindInvalid, "%s must not decrease, got %v after %v", name, v, steps[i-1])
		}
	}
	return nil
}

// WithDefaults returns the settings with nil steps and weights and empty
// orders replaced by the defaults, as reads show them.
func (s DeckSettings) WithDefaults() DeckSettings {
	if s.LearningSteps == nil {
		s.LearningSteps = append([]float64{}, DefaultLearningSteps...)
	}
	if s.RelearningSteps == nil {
		s.RelearningSteps = append([]float64{}, DefaultRelearningSteps...)
	}
	if s.Weights == nil {
		s.Weights = append([]float64{}, DefaultWeights...)
	}
	if s.ReviewOrder == "" {
		s.ReviewOrder = ReviewOrderDue
	}
	if s.NewOrder == "" {
		s.NewOrder = NewOrderAdded
	}
	s.StudyOptions = s.StudyOptions.WithDefaults()
	return s
}

// Study option values and defaults.
const (
	LeechActionTag        = "tag"
	LeechActionSuspend    = "suspend"
	NewMixMix             = "mix"
	NewMixFirst           = "first"
	NewMixLast            = "last"
	DefaultLeechThreshold = 8
	MaxLeechThreshold     = 99
)

// LeechActions and NewMixes list the option values.
var (
	LeechActions = []string{LeechActionTag, LeechActionSuspend}
	NewMixes     = []string{NewMixMix, NewMixFirst, NewMixLast}
)

// WithDefaults returns the options with nil and empty fields replaced by
// the defaults.
func (o StudyOptions) WithDefaults() StudyOptions {
	def := func(b **bool, v bool) {
		if *b == nil {
			*b = &v
		}
	}
	def(&o.BuryNew, true)
	def(&o.BuryReviews, true)
	def(&o.BuryInterday, false)
	if o.LeechThreshold == 0 {
		o.LeechThreshold = DefaultLeechThreshold
	}
	if o.LeechAction == "" {
		o.LeechAction = LeechActionTag
	}
	if o.NewMix == "" {
		o.NewMix = NewMixMix
	}
	return o
}

// Check reports whether the options set hold allowed values.
func (o StudyOptions) Check() error {
	if o.LeechThreshold < 0 || o.LeechThreshold > MaxLeechThreshold {
		return Errorf(KindInvalid, "leechThreshold must be 1-%d lapses, got %d", MaxLeechThreshold, o.LeechThreshold)
	}
	if o.LeechAction != "" && !slices.Contains(LeechActions, o.LeechAction) {
		return Errorf(KindInvalid, "leechAction must be tag or suspend, got %q", o.LeechAction)
	}
	if o.NewMix != "" && !slices.Contains(NewMixes, o.NewMix) {
		return Errorf(KindInvalid, "newMix must be mix, first or last, got %q", o.NewMix)
	}
	return nil
}

// IsLeech reports whether a card that has just lapsed for the lapses-th
// time is a leech under threshold (0: the default): at the threshold, and
// every half of it (at least one) after, as Anki.
func IsLeech(lapses, threshold int) bool {
	if threshold <= 0 {
		threshold = DefaultLeechThreshold
	}
	if lapses < threshold {
		return false
	}
	return (lapses-threshold)%max(1, threshold/2) == 0
}

// DefaultDeckSettings returns the settings a new deck starts with.
func DefaultDeckSettings() DeckSettings {
	return DeckSettings{
		DesiredRetention:    DefaultDesiredRetention,
		NewCardsPerDay:      DefaultNewCardsPerDay,
		ReviewsPerDay:       DefaultReviewsPerDay,
		MaximumIntervalDays: DefaultMaximumIntervalDays,
	}
}

// DeckCounts are the card counts of a deck at a moment: its cards and
// those of the decks below it (Parent::Child names, the deck tree), as
// Anki's deck list rolls them up.
type DeckCounts struct {
	Total     int `json:"total"`
	New       int `json:"new"`
	Learning  int `json:"learning"` // learning and relearning
	Review    int `json:"review"`
	Suspended int `json:"suspended"`
	DueNow    int `json:"dueNow"` // learning or review cards due now, not suspended
}

// Page is one page of a listing. NextCursor is empty on the last page;
// pass it back unchanged to get the next page.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// DeckPage is a page of decks.
type DeckPage = Page[Deck]

// DeleteResult reports what a delete removed.
type DeleteResult struct {
	ID           string `json:"id"`
	Deleted      bool   `json:"deleted"`
	CardsDeleted int    `json:"cardsDeleted"`
	// DryRun says nothing was written: the deck and CardsDeleted cards
	// are those the real call would move to the trash.
	DryRun bool `json:"dryRun,omitempty"`
}
