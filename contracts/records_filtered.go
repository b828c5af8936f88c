package contracts

import "time"

// Filtered decks (issue 28 §4): a saved search that gathers cards from
// their home decks into a temporary deck to study; emptying it (or
// deleting it) sends them home.
const (
	// FilteredCreate, FilteredRebuild and FilteredEmpty are
	// filtered_deck's actions.
	FilteredCreate  = "create"
	FilteredRebuild = "rebuild"
	FilteredEmpty   = "empty"
	// MaxFilteredCards is the most cards a filtered deck gathers.
	MaxFilteredCards = 1000
	// DefaultFilteredCards is a filtered deck's limit when none is given.
	DefaultFilteredCards = 100
	// MaxFilteredSearchLen bounds a filtered deck's search.
	MaxFilteredSearchLen = 500
)

// The orders a filtered deck gathers its cards in.
const (
	FilteredOrderDue      = "due"      // earliest due first
	FilteredOrderAdded    = "added"    // oldest added first
	FilteredOrderRandom   = "random"   // shuffled
	FilteredOrderLapses   = "lapses"   // most lapses first
	FilteredOrderInterval = "interval" // shortest interval first
)

// FilteredOrders lists the orders.
var FilteredOrders = []string{FilteredOrderDue, FilteredOrderAdded, FilteredOrderRandom, FilteredOrderLapses, FilteredOrderInterval}

// FilteredDeckArgs are filtered_deck's arguments: create (name, search and
// the options) builds a new filtered deck; rebuild (deckId, options to
// change) sends its cards home and gathers them again; empty (deckId)
// sends them home and keeps the deck and its search.
type FilteredDeckArgs struct {
	Action string `json:"action"`
	DeckID string `json:"deckId,omitempty"`
	Name   string `json:"name,omitempty"`
	// Search is the card search (words, tag:, deck:, is:due, is:new, …,
	// rated:n, prop:ivl>=10, prop:due<=1, prop:lapses>3).
	Search *string `json:"search,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	Order  string  `json:"order,omitempty"`
	// Reschedule makes the deck's ratings schedule cards as at home; off
	// (the default), ratings leave every schedule as it was (cram).
	Reschedule *bool `json:"reschedule,omitempty"`
}

// FilteredDeck is a filtered deck: its saved search and the cards it holds.
type FilteredDeck struct {
	DeckID     string `json:"deckId"`
	Name       string `json:"name"`
	Search     string `json:"search"`
	Limit      int    `json:"limit"`
	Order      string `json:"order"`
	Reschedule bool   `json:"reschedule"`
	// Cards is how many cards it holds now.
	Cards int `json:"cards"`
	// Gathered is how many cards this call brought in; Returned how many
	// it sent home.
	Gathered int       `json:"gathered"`
	Returned int       `json:"returned"`
	BuiltAt  time.Time `json:"builtAt"`
}
