package domain

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// AddCardsOneTx adds any number of cards to a deck in one transaction, the
// path AddCards takes without its per-call limit. For benchmarks only.
func (s *CardService) AddCardsOneTx(ctx context.Context, deckID string, cards []contracts.NewCard) (contracts.BulkResult, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	items := make([]addItem, len(cards))
	for i, c := range cards {
		items[i] = addItem{card: c}
	}
	var res contracts.BulkResult
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		now := s.now()
		if _, err := loadDeck(ctx, tx, uid, deckID); err != nil {
			return err
		}
		res, err = s.insert(ctx, tx, uid, deckID, items, now)
		return err
	})
	return res, err
}
