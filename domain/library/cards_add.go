package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// CardService manages the acting user's cards.
type CardService struct{ *kernel.Deps }

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
	card     contracts.NewCard
	line     int
	readErr  string
	deckName string // import: the deck named by the row ("" for the call's deck)
	deckID   string // resolved from deckName inside the transaction
}

// AddCards adds up to contracts.MaxBulkItems cards in one transaction, with
// one outcome per item: created, duplicate (of a card in the deck or an
// earlier item of the batch) or invalid.
func (s *CardService) AddCards(ctx context.Context, args contracts.AddCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
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

// add runs one batch in one transaction, replaying the stored result when
// the idempotency key was used before with the same request.
func (s *CardService) add(ctx context.Context, uid, deckID string, items []addItem, scope, key, fp string) (contracts.BulkResult, error) {
	return s.addWith(ctx, uid, deckID, items, scope, key, fp, false, nil)
}

// addWith is add with a hook that may adjust the result inside the
// transaction, before it is stored for replay. When dry is set, the very
// same transaction (the same validation, quotas, deck creation and
// inserts, so the same outcomes) is rolled back: nothing is written and
// the result carries the first changes it would make.
func (s *CardService) addWith(ctx context.Context, uid, deckID string, items []addItem, scope, key, fp string, dry bool, finish func(*contracts.BulkResult)) (contracts.BulkResult, error) {
	return s.addIn(ctx, s.Store, uid, deckID, items, scope, key, fp, dry, finish)
}

// addIn is addWith in transactions of st.
func (s *CardService) addIn(ctx context.Context, st ports.TxRunner, uid, deckID string, items []addItem, scope, key, fp string, dry bool, finish func(*contracts.BulkResult)) (contracts.BulkResult, error) {
	if len(key) > maxIdemKeyLen {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "idempotencyKey is %d characters; the limit is %d", len(key), maxIdemKeyLen)
	}
	// add_cards without an idempotency key needs the deck only to exist
	// and be the user's, which the insert checks in this transaction
	// (InsertNewCards: not found, inserting nothing): the deck is read
	// first only when its name matters (imports) or a stored result could
	// be replayed for it (a key); a batch that inserts nothing checks it
	// after.
	lazy := scope == idemScopeAdd && key == ""
	var res contracts.BulkResult
	err := kernel.InTxOrDry(ctx, st, dry, func(tx ports.Stores) error {
		now := s.Now()
		target := contracts.Deck{ID: deckID}
		var err error
		if !lazy {
			target, err = LoadDeck(ctx, tx, uid, deckID)
		} else if !kernel.PlausibleID(deckID) {
			err = kernel.DeckNotFound(deckID)
		}
		if err != nil {
			return err
		}
		return idempotent(ctx, tx, uid, scope, key, fp, now, &res, func() error {
			// Limits before the write: an import counts against the card
			// and deck caps; added cards also against the daily quota.
			held := 0
			if scope == idemScopeImport {
				held, err = s.CheckHoldings(ctx, tx, uid, 0, len(items))
			} else {
				err = s.ChargeWrites(ctx, tx, uid, nil, len(items), len(items))
			}
			if err != nil {
				return err
			}
			// Additions record their ids: undoing them moves them to the trash.
			var ch kernel.Changes
			created, err := s.resolveDecks(ctx, tx, uid, target, items, now, &ch)
			if err != nil {
				return err
			}
			if scope == idemScopeImport {
				if err := s.CheckDecks(held, len(created)); err != nil {
					return err
				}
			}
			if res, err = s.insert(ctx, tx, uid, deckID, items, now); err != nil {
				return err
			}
			if lazy && res.Counts[string(contracts.OutcomeCreated)] == 0 { // nothing inserted: no insert checked the deck
				if _, err := LoadDeck(ctx, tx, uid, deckID); err != nil {
					return err
				}
			}
			res.DecksCreated = created
			if finish != nil {
				finish(&res)
			}
			for i, it := range res.Items {
				if it.Status == contracts.OutcomeCreated {
					var after map[string]any
					if dry && ch.Len() < contracts.MaxPreviewChanges { // the preview's "after": the card as added
						after = addedCard(items[i], itemDeck(items[i], deckID))
					}
					ch.Add(contracts.ChangeCardAdd, it.ID, 1, nil, after)
				}
			}
			if dry {
				res.Changes = ch.Preview()
			}
			return ch.Write(ctx, tx, s.Deps)
		})
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	res.DryRun = dry // a replayed result too: nothing was written
	return res, nil
}

// addedCard is a dry run's preview of a card it would add: its text as
// given, tags and deck.
func addedCard(it addItem, deckID string) map[string]any {
	m := map[string]any{"front": it.card.Front, "back": it.card.Back, "deckId": deckID}
	if len(it.card.Tags) > 0 {
		m["tags"] = it.card.Tags
	}
	return m
}

// idempotent runs a bulk write under an idempotency key: the first call
// with key claims it, runs run and stores *res for replay; a later call
// with the same request replays the stored result into *res instead. An
// empty key just runs run.
func idempotent(ctx context.Context, tx ports.Stores, uid, scope, key, fp string, now time.Time, res *contracts.BulkResult, run func() error) error {
	if key == "" {
		return run()
	}
	storedFP, stored, found, err := tx.Idempotency().ClaimKey(ctx, uid, scope, key, fp, now)
	if err != nil {
		return kernel.Fail(err)
	}
	if found {
		return replay(res, key, fp, storedFP, stored)
	}
	if err := run(); err != nil {
		return err
	}
	b, err := json.Marshal(*res)
	if err != nil {
		return kernel.Fail(err)
	}
	return kernel.Fail(tx.Idempotency().SaveResult(ctx, uid, scope, key, b))
}

func replay(res *contracts.BulkResult, key, fp, storedFP string, stored []byte) error {
	if storedFP != fp {
		return contracts.Errorf(contracts.KindConflict, "idempotencyKey %q was already used for a different batch; use a new key for new content", key)
	}
	if len(stored) == 0 {
		return contracts.Errorf(contracts.KindConflict, "a batch with idempotencyKey %q is still being applied; retry in a moment", key)
	}
	if err := json.Unmarshal(stored, res); err != nil {
		return kernel.Fail(fmt.Errorf("stored idempotent result: %w", err))
	}
	res.Replayed = true
	return nil
}

// insert validates, de-duplicates and inserts a batch.
func (s *CardService) insert(ctx context.Context, tx ports.Stores, uid, deckID string, items []addItem, now time.Time) (contracts.BulkResult, error) {
	res := contracts.BulkResult{DeckID: deckID, Items: make([]contracts.ItemOutcome, len(items)), Counts: map[string]int{}}
	cleaned := make([]contracts.NewCard, len(items))
	hashes := make([]string, len(items))
	for i, it := range items {
		res.Items[i] = contracts.ItemOutcome{Index: i, Line: it.line}
		if it.deckID != "" && it.deckID != deckID {
			res.Items[i].DeckID = it.deckID
		}
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
	}
	texts := make([][]string, len(items))
	for i := range items {
		if res.Items[i].Status == "" {
			texts[i] = []string{cleaned[i].Front, cleaned[i].Back}
		}
	}
	missing, err := missingMedia(ctx, s.Deps, tx, uid, texts)
	if err != nil {
		return res, err
	}
	for i, id := range missing {
		res.Items[i].Status, res.Items[i].Reason = contracts.OutcomeInvalid, linePrefix(items[i].line)+missingMediaReason(id)
	}
	created := make(map[string]int, len(items)) // deck + hash → item index
	rows := make([]ports.CardRow, 0, len(items))
	rowItem := make([]int, 0, len(items)) // row → item index
	for i, it := range items {
		out := &res.Items[i]
		if out.Status != "" {
			continue
		}
		h, d := hashes[i], itemDeck(it, deckID)
		if j, ok := created[d+h]; ok {
			out.Status, out.ExistingID = contracts.OutcomeDuplicate, res.Items[j].ID
			out.Reason = fmt.Sprintf("same front and back as item %d of this batch", j)
			continue
		}
		c := cleaned[i]
		row := ports.CardRow{Hash: h, Version: 1, Card: contracts.Card{
			ID: s.IDs.NewID(), DeckID: d, Front: c.Front, Back: c.Back, Tags: c.Tags,
			State: NewCardState(now), CreatedAt: now, UpdatedAt: now,
		}}
		rows = append(rows, row)
		rowItem = append(rowItem, i)
		created[d+h] = i
		out.Status, out.ID = contracts.OutcomeCreated, row.ID
	}
	// One statement in the common case: the store skips a card whose
	// content is in its deck already; only then are the cards it
	// duplicates looked up.
	skipped, err := tx.Cards().InsertNewCards(ctx, uid, rows)
	if contracts.IsKind(err, contracts.KindNotFound) && allInDeck(rows, deckID) {
		return res, kernel.DeckNotFound(deckID)
	}
	if err != nil {
		return res, kernel.Fail(err)
	}
	if err := s.markStored(ctx, tx, uid, rows, rowItem, skipped, res.Items); err != nil {
		return res, err
	}
	for _, it := range res.Items {
		res.Counts[string(it.Status)]++
	}
	return res, nil
}

// markStored marks the items whose rows the store skipped (skipped holds
// row indexes; rowItem maps a row to its item) as duplicates of the cards
// already in their decks, and the batch's later copies of them with them.
func (s *CardService) markStored(ctx context.Context, tx ports.Stores, uid string, rows []ports.CardRow, rowItem, skipped []int, out []contracts.ItemOutcome) error {
	if len(skipped) == 0 {
		return nil
	}
	byDeck := map[string][]string{}
	for _, r := range skipped {
		byDeck[rows[r].DeckID] = append(byDeck[rows[r].DeckID], rows[r].Hash)
	}
	existing := map[string]map[string]string{} // deck → hash → card id
	for d, hs := range byDeck {
		m, err := tx.Cards().HashesInDeck(ctx, uid, d, hs)
		if err != nil {
			return kernel.Fail(err)
		}
		existing[d] = m
	}
	const reason = "a card with the same front and back is already in this deck"
	for _, r := range skipped {
		id, ok := existing[rows[r].DeckID][rows[r].Hash]
		if !ok {
			return contracts.Errorf(contracts.KindConflict, "another request added some of these cards at the same time; retry the call")
		}
		it := &out[rowItem[r]]
		planned := it.ID
		it.Status, it.ID, it.ExistingID, it.Reason = contracts.OutcomeDuplicate, "", id, reason
		for i := range out {
			if out[i].Status == contracts.OutcomeDuplicate && out[i].ExistingID == planned {
				out[i].ExistingID, out[i].Reason = id, reason
			}
		}
	}
	return nil
}

// itemDeck is the deck an item goes to.
func itemDeck(it addItem, deckID string) string {
	if it.deckID != "" {
		return it.deckID
	}
	return deckID
}

// NewCardState is the schedule of a card never reviewed.
func NewCardState(now time.Time) contracts.CardState {
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

// allInDeck reports whether every row goes to deckID.
func allInDeck(rows []ports.CardRow, deckID string) bool {
	for _, r := range rows {
		if r.DeckID != deckID {
			return false
		}
	}
	return true
}
