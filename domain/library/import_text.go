package library

import (
	"context"
	"fmt"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
)

// ImportLarge imports a text export of any size as import_cards would,
// at most contracts.MaxBulkItems cards a transaction, and reports the
// outcome in an import report (duplicates and unreadable lines as
// skipped, with the first one as the example). With dry set each
// transaction is rolled back (a dry run: nothing written; a card
// repeating one of an earlier chunk of 1,000 is counted as created).
func (s *CardService) ImportLarge(ctx context.Context, uid, deckID, text string, format contracts.ImportFormat, dry bool, progress func(done, total int64, message string)) (contracts.ImportReport, error) {
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
		res, err := s.addWith(ctx, uid, deckID, chunk, idemScopeImport, "", "", dry, nil)
		if err != nil {
			return rep, err
		}
		for _, d := range res.DecksCreated {
			if !slices.Contains(rep.DecksCreated, d) { // a dry run's later chunk creates them again
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
