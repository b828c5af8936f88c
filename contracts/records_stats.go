package contracts

import "time"

// Plan limits.
const (
	MaxPlanDays     = 365
	DefaultPlanDays = 30
)

// MatureIntervalDays is the interval from which a card is mature.
const MatureIntervalDays = 21

// DayCount is a count of reviews on one of the learner's days.
type DayCount struct {
	Date    string `json:"date"` // YYYY-MM-DD
	Reviews int    `json:"reviews"`
	Passed  int    `json:"passed"` // rated hard, good or easy
}

// PhaseCounts counts cards by phase.
type PhaseCounts struct {
	New        int `json:"new"`
	Learning   int `json:"learning"`
	Review     int `json:"review"`
	Relearning int `json:"relearning"`
	Suspended  int `json:"suspended"`
}

// Stats are review statistics, for one deck or the whole account.
type Stats struct {
	DeckID        string     `json:"deckId,omitempty"`
	Days          int        `json:"days"`
	ReviewsPerDay []DayCount `json:"reviewsPerDay"`
	TotalReviews  int        `json:"totalReviews"`
	TrueRetention *float64   `json:"trueRetention"` // share of review-phase reviews passed; null without such reviews
	// YoungRetention and MatureRetention split TrueRetention by the card's
	// interval before the review: young below MatureIntervalDays, mature
	// from it (as Anki). Absent without such reviews.
	YoungRetention  *float64    `json:"youngRetention,omitempty"`
	MatureRetention *float64    `json:"matureRetention,omitempty"`
	YoungReviews    int         `json:"youngReviews"`
	MatureReviews   int         `json:"matureReviews"`
	CardStates      PhaseCounts `json:"cardStates"`
	StreakDays      int         `json:"streakDays"`
	// TimeSpentSeconds is the time spent reviewing in the period, from the
	// reviews that recorded their duration.
	TimeSpentSeconds int       `json:"timeSpentSeconds"`
	GeneratedAt      time.Time `json:"generatedAt"`
}

// DueDay is what one of the learner's days holds: the review cards due
// (reviewed that day), the ratings of learning and relearning steps, and
// the new cards introduced. Day 0 is what sessions serve for the rest of
// today, after what was studied.
type DueDay struct {
	Date     string `json:"date"`
	Due      int    `json:"due"`
	Learning int    `json:"learning"`
	New      int    `json:"new"`
}

// StudyPlan forecasts the workload and the new cards per day that fit a
// time budget.
type StudyPlan struct {
	DeckID                 string   `json:"deckId,omitempty"`
	Days                   int      `json:"days"`
	Forecast               []DueDay `json:"forecast"` // day 0 includes everything overdue
	MinutesPerDay          float64  `json:"minutesPerDay"`
	SecondsPerReview       float64  `json:"secondsPerReview"`
	SecondsPerReviewSource string   `json:"secondsPerReviewSource"` // "measured" or "default"
	AverageDuePerDay       float64  `json:"averageDuePerDay"`
	CapacityPerDay         int      `json:"capacityPerDay"` // reviews that fit the budget
	NewCardsPerDay         int      `json:"newCardsPerDay"` // the decks' daily limit the forecast assumes
	NewCardsRemaining      int      `json:"newCardsRemaining"`
	// AdvisedNewCardsPerDay is the most new cards a day whose reviews fit
	// the budget; only when asked (advise).
	AdvisedNewCardsPerDay *int `json:"advisedNewCardsPerDay,omitempty"`
}

// Retention advice limits (get_retention_advice): the days simulated and
// the range searched for the minimum recommended retention.
const (
	DefaultAdviceDays = 365
	MinAdviceDays     = 30
	MaxAdviceDays     = 730
	// AdviceLowest and AdviceHighest bound the search for the minimum
	// recommended retention (as Anki's "compute minimum recommended
	// retention").
	AdviceLowest  = 0.70
	AdviceHighest = 0.95
)

// GetRetentionAdviceArgs are get_retention_advice's arguments.
type GetRetentionAdviceArgs struct {
	DeckID string `json:"deckId"`
	Days   int    `json:"days,omitempty"` // the days simulated, default DefaultAdviceDays
}

// RetentionAdvice is a deck's simulated workload and knowledge at several
// desired retentions under its preset, with the deck's new cards a day,
// over Days days, and the minimum recommended retention: the one of
// AdviceLowest-AdviceHighest whose study time per card memorized at the
// end (forgetting weighed more) is least. A lower retention costs more
// for each card known; a higher one buys more knowledge at a higher cost
// per card.
type RetentionAdvice struct {
	DeckID           string           `json:"deckId"`
	PresetID         string           `json:"presetId"`
	Days             int              `json:"days"`
	NewCardsPerDay   int              `json:"newCardsPerDay"`
	SecondsPerReview float64          `json:"secondsPerReview"`
	Current          float64          `json:"current"`     // the preset's desired retention
	Recommended      float64          `json:"recommended"` // the minimum recommended retention
	Points           []RetentionPoint `json:"points"`      // by desired retention, ascending
}

// RetentionPoint is the simulated workload and knowledge at one desired
// retention.
type RetentionPoint struct {
	DesiredRetention float64 `json:"desiredRetention"`
	ReviewsPerDay    float64 `json:"reviewsPerDay"`
	MinutesPerDay    float64 `json:"minutesPerDay"`
	LapsesPerDay     float64 `json:"lapsesPerDay"` // reviews forgotten a day
	// Memorized is the knowledge at the end: the expected number of the
	// deck's cards recalled then (the sum of their recall probabilities).
	Memorized float64 `json:"memorized"`
	// CostPerMemorized is the study time of all the days, in seconds,
	// with the time of forgetting (a review's Again and its relearning
	// steps) counted 2.5 times (loss aversion, as the reference FSRS
	// simulator), divided by Memorized: what the recommendation
	// minimises.
	CostPerMemorized float64 `json:"costPerMemorized"`
}

// AdvisorRetentions are the desired retentions the advisor always shows
// (with the current and the recommended one).
var AdvisorRetentions = []float64{0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97}

// CardDistribution is how the scheduled cards of a deck (or of every deck)
// spread by interval, stability and difficulty, and how the answer buttons
// were used in a period by the card's age: what the stats page draws.
type CardDistribution struct {
	DeckID     string   `json:"deckId,omitempty"`
	Days       int      `json:"days"` // the period of Buttons
	Intervals  []Bucket `json:"intervals"`
	Stability  []Bucket `json:"stability"`
	Difficulty []Bucket `json:"difficulty"`
	Buttons    Buttons  `json:"buttons"`
}

// Bucket counts the cards whose value is in [Min, Max); Max is 0 for the
// last, open bucket. Label names the range for a person ("8–14 d").
type Bucket struct {
	Label string  `json:"label"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max,omitempty"`
	Cards int     `json:"cards"`
}

// Buttons counts the ratings of normal reviews by the card's age before
// the review: learning (new, learning and relearning cards), young
// (review cards with an interval under MatureIntervalDays) and mature.
// Each array is indexed as Ratings: again, hard, good, easy.
type Buttons struct {
	Learning [4]int `json:"learning"`
	Young    [4]int `json:"young"`
	Mature   [4]int `json:"mature"`
}
