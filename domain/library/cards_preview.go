package library

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
)

// PreviewImport reports what ImportCards would do with args, item by item
// (created, duplicate with the existing card, invalid with the reason, and
// the decks it would create), without changing anything: it is
// ImportCards' dry run (the import's very transaction, rolled back).
// Created outcomes carry no id. The idempotency key is ignored.
func (s *CardService) PreviewImport(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error) {
	args.DryRun, args.IdempotencyKey = true, ""
	res, err := s.ImportCards(ctx, args)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	for i := range res.Items {
		if res.Items[i].Status == contracts.OutcomeCreated {
			res.Items[i].ID = ""
		}
	}
	res.DryRun, res.Changes = false, nil
	return res, nil
}
