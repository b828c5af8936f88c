package contracts

import "time"

// TrashDays is how long a deleted deck or card stays in the trash, where
// restore_items and the Trash page bring it back, before the purge deletes
// it for good.
const TrashDays = 30

// TrashTTL is TrashDays as a duration.
const TrashTTL = TrashDays * 24 * time.Hour

// MaxTrashFrontLen bounds a trashed card's front in a trash listing.
const MaxTrashFrontLen = 120

// Trash item kinds.
const (
	TrashKindDeck = "deck"
	TrashKindCard = "card"
)

// TrashItem is a deck, or a card deleted on its own, in the trash. A
// deck's cards went with it and come back with it.
type TrashItem struct {
	Kind string `json:"kind"` // TrashKindDeck or TrashKindCard
	ID   string `json:"id"`
	// Name is a deck's name; for a card, its deck's name.
	Name string `json:"name,omitempty"`
	// Front is a card's question side, cut to MaxTrashFrontLen characters.
	Front string `json:"front,omitempty"`
	// DeckID is a card's deck.
	DeckID string `json:"deckId,omitempty"`
	// DeckInTrash says a card's deck is in the trash too: restore the
	// deck first.
	DeckInTrash bool `json:"deckInTrash,omitempty"`
	// Cards counts the cards that went to the trash with a deck.
	Cards     int       `json:"cards,omitempty"`
	DeletedAt time.Time `json:"deletedAt"`
	// ExpiresAt is when the purge deletes it for good.
	ExpiresAt time.Time `json:"expiresAt"`
}

// TrashPage is a page of the trash, newest first.
type TrashPage = Page[TrashItem]

// OutcomeRestored is restore_items' outcome of an item brought back.
const OutcomeRestored OutcomeStatus = "restored"

// RestoreResult is restore_items' outcome, item by item: decks (Index into
// deckIds), then cards (Index into cardIds), with totals by status.
type RestoreResult struct {
	Decks  []ItemOutcome  `json:"decks"`
	Cards  []ItemOutcome  `json:"cards"`
	Counts map[string]int `json:"counts"`
}

// ListTrashArgs are list_trash's arguments.
type ListTrashArgs struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// RestoreItemsArgs are restore_items' arguments.
type RestoreItemsArgs struct {
	DeckIDs []string `json:"deckIds,omitempty"`
	CardIDs []string `json:"cardIds,omitempty"`
}
