package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/ports"
)

// CardService manages the acting user's cards.
type CardService struct{ *deps }

var _ ports.CardService = (*CardService)(nil)

// Idempotency scopes: a key is remembered per user and per operation.
const (
	idemScopeAdd    = "add_cards"
	idemScopeImport = "import_cards"
	maxIdemKeyLen   = 128
)

// addItem is one card to add: from add_cards, or a record of an import
// (with its line, and the reason it could not be read).
type addItem struct {
	card    contracts.NewCard
	line    int
	readErr string
}

// AddCards adds up to contracts.MaxBulkItems cards in one transaction, with
// one outcome per item: created, duplicate (of a card in the deck or an
// earlier item of the batch) or invalid.
func (s *CardService) AddCards(ctx context.Context, args contracts.AddCardsArgs) (contracts.BulkResult, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if n := len(args.Cards); n == 0 || n > contracts.MaxBulkItems {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "cards holds %d items; send 1-%d per call and split larger batches", n, contracts.MaxBulkItems)
	}
	items := make([]addItem, len(args.Cards))
	for i, c := range args.Cards {
		items[i] = addItem{card: c}
	}
	fp := fingerprint(struct {
		DeckID string              `json:"deckId"`
		Cards  []contracts.NewCard `json:"cards"`
	}{args.DeckID, args.Cards})
	return s.add(ctx, uid, args.DeckID, items, idemScopeAdd, args.IdempotencyKey, fp)
}

// ImportCards parses pasted text and adds its cards as AddCards does. A
// line that cannot be read becomes an invalid outcome naming the line;
// outcome indexes count the records read, header lines and blank lines
// left out.
func (s *CardService) ImportCards(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	parsed, err := cardtext.Parse(args.Text, args.Format)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if n := len(parsed.Records); n > contracts.MaxBulkItems {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "the text holds %d cards; import at most %d per call and split the rest into further calls", n, contracts.MaxBulkItems)
	}
	items := make([]addItem, len(parsed.Records))
	for i, r := range parsed.Records {
		items[i] = addItem{card: r.Card, line: r.Line, readErr: r.Err}
	}
	fp := fingerprint(struct {
		DeckID string                 `json:"deckId"`
		Format contracts.ImportFormat `json:"format"`
		Text   string                 `json:"text"`
	}{args.DeckID, parsed.Format, args.Text})
	return s.add(ctx, uid, args.DeckID, items, idemScopeImport, args.IdempotencyKey, fp)
}

// add runs one batch in one transaction, replaying the stored result when
// the idempotency key was used before with the same request.
func (s *CardService) add(ctx context.Context, uid, deckID string, items []addItem, scope, key, fp string) (contracts.BulkResult, error) {
	if len(key) > maxIdemKeyLen {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "idempotencyKey is %d characters; the limit is %d", len(key), maxIdemKeyLen)
	}
	var res contracts.BulkResult
	err := s.store.InTx(ctx, func(tx ports.Stores) error {
		now := s.now()
		if _, err := loadDeck(ctx, tx, uid, deckID); err != nil {
			return err
		}
		if key != "" {
			storedFP, stored, found, err := tx.Idempotency().ClaimKey(ctx, uid, scope, key, fp, now)
			if err != nil {
				return fail(err)
			}
			if found {
				return replay(&res, key, fp, storedFP, stored)
			}
		}
		var err error
		if res, err = s.insert(ctx, tx, uid, deckID, items, now); err != nil {
			return err
		}
		if key != "" {
			b, err := json.Marshal(res)
			if err != nil {
				return fail(err)
			}
			if err := tx.Idempotency().SaveResult(ctx, uid, scope, key, b); err != nil {
				return fail(err)
			}
		}
		return nil
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	return res, nil
}

func replay(res *contracts.BulkResult, key, fp, storedFP string, stored []byte) error {
	if storedFP != fp {
		return contracts.Errorf(contracts.KindConflict, "idempotencyKey %q was already used for a different batch; use a new key for new content", key)
	}
	if len(stored) == 0 {
		return contracts.Errorf(contracts.KindConflict, "a batch with idempotencyKey %q is still being applied; retry in a moment", key)
	}
	if err := json.Unmarshal(stored, res); err != nil {
		return fail(fmt.Errorf("stored idempotent result: %w", err))
	}
	res.Replayed = true
	return nil
}

// insert validates, de-duplicates and inserts a batch.
func (s *CardService) insert(ctx context.Context, tx ports.Stores, uid, deckID string, items []addItem, now time.Time) (contracts.BulkResult, error) {
	res := contracts.BulkResult{DeckID: deckID, Items: make([]contracts.ItemOutcome, len(items)), Counts: map[string]int{}}
	cleaned := make([]contracts.NewCard, len(items))
	hashes := make([]string, len(items))
	var unique []string
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		res.Items[i] = contracts.ItemOutcome{Index: i}
		if it.readErr != "" {
			res.Items[i].Status, res.Items[i].Reason = contracts.OutcomeInvalid, it.readErr
			continue
		}
		c, err := cardtext.Clean(it.card)
		if err != nil {
			res.Items[i].Status, res.Items[i].Reason = contracts.OutcomeInvalid, linePrefix(it.line)+err.Error()
			continue
		}
		cleaned[i], hashes[i] = c, cardtext.Hash(c.Front, c.Back)
		if !seen[hashes[i]] {
			seen[hashes[i]] = true
			unique = append(unique, hashes[i])
		}
	}
	existing := map[string]string{}
	if len(unique) > 0 {
		var err error
		if existing, err = tx.Cards().HashesInDeck(ctx, uid, deckID, unique); err != nil {
			return res, fail(err)
		}
	}
	created := make(map[string]int, len(unique)) // hash → item index
	rows := make([]ports.CardRow, 0, len(unique))
	for i := range items {
		out := &res.Items[i]
		if out.Status != "" {
			continue
		}
		h := hashes[i]
		if id, ok := existing[h]; ok {
			out.Status, out.ExistingID = contracts.OutcomeDuplicate, id
			out.Reason = "a card with the same front and back is already in this deck"
			continue
		}
		if j, ok := created[h]; ok {
			out.Status, out.ExistingID = contracts.OutcomeDuplicate, res.Items[j].ID
			out.Reason = fmt.Sprintf("same front and back as item %d of this batch", j)
			continue
		}
		c := cleaned[i]
		row := ports.CardRow{Hash: h, Version: 1, Card: contracts.Card{
			ID: s.ids.NewID(), DeckID: deckID, Front: c.Front, Back: c.Back, Tags: c.Tags,
			State: newCardState(now), CreatedAt: now, UpdatedAt: now,
		}}
		rows = append(rows, row)
		created[h] = i
		out.Status, out.ID = contracts.OutcomeCreated, row.ID
	}
	if len(rows) > 0 {
		if err := tx.Cards().InsertCards(ctx, uid, rows); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return res, contracts.Errorf(contracts.KindConflict, "another request added some of these cards at the same time; retry the call")
			}
			return res, fail(err)
		}
	}
	for _, it := range res.Items {
		res.Counts[string(it.Status)]++
	}
	return res, nil
}

// newCardState is the schedule of a card never reviewed.
func newCardState(now time.Time) contracts.CardState {
	return contracts.CardState{Phase: contracts.PhaseNew, Due: now}
}

func linePrefix(line int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf("line %d: ", line)
}

// fingerprint is the hex SHA-256 of a request's JSON form.
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("domain: fingerprint of an unmarshalable request: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
