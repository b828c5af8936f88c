package library

import (
	"context"
	"fmt"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// ImportLarge imports a text export of any size as import_cards would,
// at most contracts.MaxBulkItems cards a transaction, and reports the
// outcome in an import report (duplicates and unreadable lines as
// skipped, with the first one as the example). With dry set all the
// chunks run in one transaction rolled back at the end (a dry run:
// nothing written), so a card repeating one of an earlier chunk of 1,000
// is a duplicate, and the caps count the earlier chunks' cards and decks,
// as in the real import.
func (s *CardService) ImportLarge(ctx context.Context, uid, deckID, text string, format contracts.ImportFormat, dry bool, progress func(done, total int64, message string)) (contracts.ImportReport, error) {
	if dry {
		var rep contracts.ImportReport
		err := kernel.InTxOrDry(ctx, s.Store, true, func(tx ports.Stores) error {
			var err error
			rep, err = s.importLarge(ctx, oneTx{tx}, uid, deckID, text, format, progress)
			return err
		})
		return rep, err
	}
	return s.importLarge(ctx, s.Store, uid, deckID, text, format, progress)
}

// oneTx runs every transaction asked of it in tx: a dry run's chunks
// share the one transaction the dry run rolls back.
type oneTx struct{ tx ports.Stores }

// InTx implements ports.TxRunner: fn runs in the shared transaction.
func (o oneTx) InTx(_ context.Context, fn func(tx ports.Stores) error) error { return fn(o.tx) }

// InCallTx implements ports.TxRunner: fn runs in the shared transaction.
func (o oneTx) InCallTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return fn(ctx)
}

// importLarge is ImportLarge with its chunks committed in transactions of
// st (their own, or a dry run's shared one).
func (s *CardService) importLarge(ctx context.Context, st ports.TxRunner, uid, deckID, text string, format contracts.ImportFormat, progress func(done, total int64, message string)) (contracts.ImportReport, error) {
	parsed, err := cardtext.Parse(text, format)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	items, dropped := importItems(parsed)
	rep := contracts.ImportReport{Format: string(parsed.Format), DecksCreated: []string{}, Skipped: []contracts.ImportSkip{}}
	skips := map[string]*contracts.ImportSkip{}
	var order []string
	total := int64(len(items))
	for i := 0; i < len(items); i += contracts.MaxBulkItems {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		chunk := items[i:min(i+contracts.MaxBulkItems, len(items))]
		res, err := s.addIn(ctx, st, uid, deckID, chunk, idemScopeImport, "", "", false, nil)
		if err != nil {
			return rep, err
		}
		for _, d := range res.DecksCreated {
			if !slices.Contains(rep.DecksCreated, d) {
				rep.DecksCreated = append(rep.DecksCreated, d)
			}
		}
		for _, it := range res.Items {
			switch it.Status {
			case contracts.OutcomeCreated:
				rep.CardsCreated++
			default:
				key := string(it.Status)
				sk, ok := skips[key]
				if !ok {
					sk = &contracts.ImportSkip{What: "card", Reason: skipReason(it.Status)}
					skips[key], order = sk, append(order, key)
				}
				if sk.Count++; sk.Example == "" {
					sk.Example = it.Reason
				}
			}
		}
		if progress != nil {
			progress(int64(i+len(chunk)), total, fmt.Sprintf("imported %d of %d cards", i+len(chunk), total))
		}
	}
	for _, k := range order {
		rep.Skipped = append(rep.Skipped, *skips[k])
	}
	if len(dropped) > 0 {
		rep.Dropped = dropped
	}
	return rep, nil
}

// skipReason says why an import left a card out, by its outcome.
func skipReason(st contracts.OutcomeStatus) string {
	switch st {
	case contracts.OutcomeDuplicate:
		return "the deck already has a card with this front and back"
	case contracts.OutcomeInvalid:
		return "the line could not be read or breaks a card rule"
	}
	return string(st)
}
