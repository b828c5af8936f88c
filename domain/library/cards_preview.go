package library

import (
	"context"
	"errors"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// errPreviewDone rolls a preview's transaction back.
var errPreviewDone = errors.New("preview: roll back")

// PreviewImport reports what ImportCards would do with args, item by item
// (created, duplicate with the existing card, invalid with the reason, and
// the decks it would create), without changing anything: the import runs
// in a transaction that is always rolled back. Created outcomes carry no
// id. The idempotency key is ignored.
func (s *CardService) PreviewImport(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	_, items, dropped, err := parseImport(args)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	var res contracts.BulkResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		target, err := LoadDeck(ctx, tx, uid, args.DeckID)
		if err != nil {
			return err
		}
		created, err := s.resolveDecks(ctx, tx, uid, target, items, now)
		if err != nil {
			return err
		}
		if res, err = s.insert(ctx, tx, uid, args.DeckID, items, now); err != nil {
			return err
		}
		res.DecksCreated = created
		return errPreviewDone
	})
	if !errors.Is(err, errPreviewDone) {
		if err == nil {
			err = contracts.Errorf(contracts.KindInternal, "preview was not rolled back")
		}
		return contracts.BulkResult{}, err
	}
	for i := range res.Items {
		if res.Items[i].Status == contracts.OutcomeCreated {
			res.Items[i].ID = ""
		}
	}
	if len(dropped) > 0 {
		res.Dropped = dropped
	}
	return res, nil
}
