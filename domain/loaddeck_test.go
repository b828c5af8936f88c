package domain

import (
	"context"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// slowDecks is a DeckStore with GetDeck only; fastDecks adds the fast path.
type slowDecks struct {
	ports.DeckStore
	getDeck int
}

func (d *slowDecks) GetDeck(_ context.Context, _, deckID string, _ time.Time) (contracts.Deck, error) {
	d.getDeck++
	if deckID != "d1" {
		return contracts.Deck{}, contracts.Errorf(contracts.KindNotFound, "deck not found")
	}
	return contracts.Deck{ID: "d1", Counts: contracts.DeckCounts{Total: 3}}, nil
}

type fastDecks struct {
	slowDecks
	fast int
}

func (d *fastDecks) DeckWithoutCounts(_ context.Context, _, deckID string) (contracts.Deck, error) {
	d.fast++
	if deckID != "d1" {
		return contracts.Deck{}, contracts.Errorf(contracts.KindNotFound, "deck not found")
	}
	return contracts.Deck{ID: "d1"}, nil
}

type decksOnly struct {
	ports.Stores
	decks ports.DeckStore
}

func (s decksOnly) Decks() ports.DeckStore { return s.decks }

func TestLoadDeckUsesTheFastPathWhenOffered(t *testing.T) {
	ctx := context.Background()
	fast := &fastDecks{}
	d, err := loadDeck(ctx, decksOnly{decks: fast}, "u", "d1", time.Time{})
	if err != nil || d.ID != "d1" || fast.fast != 1 || fast.getDeck != 0 {
		t.Errorf("fast path: %+v %v (fast %d, GetDeck %d)", d, err, fast.fast, fast.getDeck)
	}
	_, err = loadDeck(ctx, decksOnly{decks: fast}, "u", "d2", time.Time{})
	if !contracts.IsKind(err, contracts.KindNotFound) || err.Error() != "deck d2 not found; list_decks shows the user's decks" {
		t.Errorf("fast path, missing deck: %v", err)
	}
	slow := &slowDecks{}
	d, err = loadDeck(ctx, decksOnly{decks: slow}, "u", "d1", time.Time{})
	if err != nil || d.Counts.Total != 3 || slow.getDeck != 1 {
		t.Errorf("fallback: %+v %v", d, err)
	}
	if _, err := loadDeck(ctx, decksOnly{decks: slow}, "u", "bad id", time.Time{}); !contracts.IsKind(err, contracts.KindNotFound) || slow.getDeck != 1 {
		t.Errorf("implausible id reached the store: %v", err)
	}
}
