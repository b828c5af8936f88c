package ports

import (
	"context"
	"time"
)

// TrashKind says whether a trashed item is a deck or a card.
type TrashKind string

// The kinds of trashed items.
const (
	TrashDeck TrashKind = "deck"
	TrashCard TrashKind = "card"
)

// TrashItem is a deck or card in the trash.
type TrashItem struct {
	Kind TrashKind
	ID   string
	// Name is a deck's name; for a card, its deck's name (live or
	// trashed; empty when the deck is gone).
	Name string
	// Front is a card's question side (empty for a deck).
	Front string
	// DeckID is a card's deck (empty for a deck).
	DeckID string
	// Hash is a card's content hash, unique among the live cards of a deck.
	Hash string
	// Version is a card's version (a restored card keeps it); 0 for a deck.
	Version int64
	// WithDeck is, for a card that went to the trash with its deck, that
	// deck's id; empty for a card deleted on its own and for a deck.
	WithDeck string
	// DeckTrashed says a card's deck is in the trash (not live).
	DeckTrashed bool
	// Cards counts a deck's cards that went to the trash with it.
	Cards int
	// DeletedAt is when it was deleted.
	DeletedAt time.Time
}

// TrashCursor is where a page of ListTrash starts: after the item deleted
// at DeletedAt with id ID (newest first).
type TrashCursor struct {
	DeletedAt time.Time
	ID        string
}

// TrashStore keeps what DeckStore.TrashDeck and CardStore.TrashCards
// moved out of the live tables: decks, cards and their reviews, as they
// were. Every read other than this store's leaves them out.
type TrashStore interface {
	// ListTrash returns up to limit of the user's trashed decks and the
	// cards deleted on their own (a deck's cards are counted in its item),
	// newest first (by deletion time, then id descending), after the
	// cursor when it is not nil.
	ListTrash(ctx context.Context, userID string, after *TrashCursor, limit int) ([]TrashItem, error)
	// TrashedItems returns the user's trashed decks among deckIDs and
	// trashed cards among cardIDs (those that went with their deck
	// included), in no particular order; ids not in the user's trash are
	// left out.
	TrashedItems(ctx context.Context, userID string, deckIDs, cardIDs []string) ([]TrashItem, error)
	// RestoreDeck moves a trashed deck back with the cards and reviews that
	// went with it, and returns how many cards came back. It uses its
	// preset again when that still exists, else keeps the preset's settings
	// as its own. Not found when the deck is not in the user's trash;
	// conflict when the user has a live deck of the same name.
	RestoreDeck(ctx context.Context, userID, deckID string) (cards int, err error)
	// RestoreCard moves a trashed card back with its reviews, into its
	// deck. Not found when the card is not in the user's trash or its deck
	// is not live; conflict when a live card of the deck has its hash.
	RestoreCard(ctx context.Context, userID, cardID string) error
	// PurgeTrash deletes, for good, up to limit items (decks, cards) of any
	// user deleted before before, with their reviews, and returns how many
	// it deleted: fewer than limit means none is left. Safe to run on
	// several instances at once.
	PurgeTrash(ctx context.Context, before time.Time, limit int) (int, error)
}
