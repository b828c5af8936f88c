package contracts

import "time"

// Deck limits and defaults.
const (
	DefaultDesiredRetention    = 0.9
	DefaultNewCardsPerDay      = 20
	DefaultReviewsPerDay       = 200
	DefaultMaximumIntervalDays = 36500
	MaxDeckNameLen             = 200
	MaxDescriptionLen          = 2000
)

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

// DeckSettings are the per-deck scheduling settings.
type DeckSettings struct {
	DesiredRetention    float64 `json:"desiredRetention"`    // target recall probability, 0.7–0.99
	NewCardsPerDay      int     `json:"newCardsPerDay"`      // new cards introduced per day
	ReviewsPerDay       int     `json:"reviewsPerDay"`       // review cap per session/day
	MaximumIntervalDays int     `json:"maximumIntervalDays"` // longest interval the scheduler may pick
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

// DeckCounts are the card counts of a deck at a moment.
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
}
