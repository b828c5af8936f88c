package library

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// maxImportDecks bounds the decks one import may name in its deck column.
const maxImportDecks = 100

// ImportCards parses pasted text and adds its cards as AddCards does.
// CSV and TSV rows are one card each. An Anki export's notes make the
// cards of their note type (both directions of a reversed note, one card
// per cloze number), their Anki HTML converted to the card content format
// (what the conversion leaves out is counted in the result's Dropped), and
// go to the deck their deck column names (created when missing). A line
// that cannot be read, or a note that makes no card, becomes an invalid
// outcome naming the line; outcomes are one per card, in text order.
// With args.DryRun the call runs the same transaction and rolls it back:
// the same outcomes and counts, the first changes, nothing written.
func (s *CardService) ImportCards(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	parsed, items, dropped, err := parseImport(args)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	fp := fingerprint(struct {
		DeckID string                 `json:"deckId"`
		Format contracts.ImportFormat `json:"format"`
		Text   string                 `json:"text"`
	}{args.DeckID, parsed.Format, args.Text})
	// A dry run is the very same transaction, rolled back.
	return s.addWith(ctx, uid, args.DeckID, items, idemScopeImport, args.IdempotencyKey, fp, args.DryRun, func(res *contracts.BulkResult) {
		if len(dropped) > 0 {
			res.Dropped = dropped
		}
	})
}

// parseImport parses an import's text into the cards it makes, refusing
// text that makes more than one call may add.
func parseImport(args contracts.ImportCardsArgs) (cardtext.Parsed, []addItem, cardtext.Dropped, error) {
	parsed, err := cardtext.Parse(args.Text, args.Format)
	if err != nil {
		return cardtext.Parsed{}, nil, nil, err
	}
	items, dropped := importItems(parsed)
	if n := len(items); n > contracts.MaxBulkItems {
		return cardtext.Parsed{}, nil, nil, contracts.Errorf(contracts.KindInvalid, "the text makes %d cards; import at most %d per call and split the rest into further calls", n, contracts.MaxBulkItems)
	}
	return parsed, items, dropped, nil
}

// importItems turns parsed records into the cards to add.
func importItems(p cardtext.Parsed) ([]addItem, cardtext.Dropped) {
	dropped := cardtext.Dropped{}
	var items []addItem
	for _, r := range p.Records {
		if r.Err != "" || p.Format != contracts.ImportAnki {
			items = append(items, addItem{card: r.Card, line: r.Line, readErr: r.Err})
			continue
		}
		cards, err := noteCards(r, p.HTML, dropped)
		if err != nil {
			items = append(items, addItem{line: r.Line, readErr: fmt.Sprintf("line %d: %v", r.Line, err)})
			continue
		}
		for _, c := range cards {
			items = append(items, addItem{card: c, line: r.Line, deckName: r.Deck})
		}
	}
	return items, dropped
}

// noteCards renders one Anki note's cards in the card content format.
func noteCards(r cardtext.Record, isHTML bool, dropped cardtext.Dropped) ([]contracts.NewCard, error) {
	tp := noteTypeFor(r)
	fields := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		if !isHTML {
			f = cardtext.PlainToHTML(f)
		}
		fields[i] = f
	}
	// Fields beyond the type's (an unknown type's extra fields) join the
	// back, as the export showed them.
	if len(fields) > len(tp.Fields) {
		extra := fields[len(tp.Fields):]
		fields = fields[:len(tp.Fields)]
		for _, f := range extra {
			if !notes.FieldEmpty(f) {
				fields[len(fields)-1] += "<br><br>" + f
			}
		}
	}
	cards, err := tp.Cards(notes.Note{Fields: fields, Tags: r.Card.Tags, Deck: r.Deck})
	if err != nil {
		return nil, err
	}
	// What the conversion leaves out is counted once per note field, not
	// once per card that shows the field.
	for _, f := range fields {
		cardtext.FromAnkiHTML(f, nil, dropped)
	}
	out := make([]contracts.NewCard, len(cards))
	for i, c := range cards {
		out[i] = contracts.NewCard{
			Front: cardtext.FromAnkiHTML(c.Front, nil, nil),
			Back:  cardtext.FromAnkiHTML(c.Back, nil, nil),
			Tags:  r.Card.Tags,
		}
	}
	return out, nil
}

// noteTypeFor picks the note type of a record: a stock type named by its
// note type column, Cloze for an unknown type whose text has deletions,
// else Basic (its first field the front, the others the back).
func noteTypeFor(r cardtext.Record) notes.Type {
	if t, ok := notes.StockByName(r.Notetype); ok {
		return t
	}
	name := strings.ToLower(r.Notetype)
	if len(r.Fields) > 0 && len(notes.ClozeNumbers(r.Fields[0])) > 0 || strings.Contains(name, "cloze") {
		t, _ := notes.StockByName(notes.Cloze)
		return t
	}
	if strings.Contains(name, "reverse") && !strings.Contains(name, "optional") {
		t, _ := notes.StockByName(notes.BasicReversed)
		return t
	}
	t, _ := notes.StockByName(notes.Basic)
	return t
}

// resolveDecks sets each item's deck from the deck its row names: the
// target deck when the name is the target's, else the user's deck of that
// name (compared case-insensitively, as Anki does), created with default
// settings when missing. It returns the names of the decks it created,
// whose additions it records in ch (before the cards', so an undo, newest
// first, takes the cards out of a deck before the deck).
func (s *CardService) resolveDecks(ctx context.Context, tx ports.Stores, uid string, target contracts.Deck, items []addItem, now time.Time, ch *kernel.Changes) ([]string, error) {
	names := map[string]string{} // folded name → deck id
	need := false
	for _, it := range items {
		if it.deckName != "" && !strings.EqualFold(it.deckName, target.Name) {
			need = true
			break
		}
	}
	if !need {
		return nil, nil
	}
	after := ""
	for {
		decks, err := tx.Decks().ListDecks(ctx, uid, after, MaxDeckPage, now)
		if err != nil {
			return nil, kernel.Fail(err)
		}
		for _, d := range decks {
			if _, ok := names[strings.ToLower(d.Name)]; !ok {
				names[strings.ToLower(d.Name)] = d.ID
			}
		}
		if len(decks) < MaxDeckPage {
			break
		}
		after = decks[len(decks)-1].ID
	}
	names[strings.ToLower(target.Name)] = target.ID
	var created []string
	for i := range items {
		it := &items[i]
		if it.deckName == "" || it.readErr != "" {
			continue
		}
		name, err := CleanDeckName(it.deckName)
		if err != nil {
			it.readErr = fmt.Sprintf("%sdeck %q: %v", linePrefix(it.line), it.deckName, err)
			continue
		}
		id, ok := names[strings.ToLower(name)]
		if !ok {
			if len(created) >= maxImportDecks {
				it.readErr = fmt.Sprintf("%sthe text names more than %d new decks; create them first or split the file", linePrefix(it.line), maxImportDecks)
				continue
			}
			d := contracts.Deck{ID: s.IDs.NewID(), Name: name, Settings: contracts.DefaultDeckSettings(), CreatedAt: now, UpdatedAt: now}
			if err := NewPreset(ctx, tx, s.Deps, uid, name, &d.Settings); err != nil {
				return nil, err
			}
			if err := tx.Decks().CreateDeck(ctx, uid, d); err != nil {
				return nil, kernel.Fail(err)
			}
			ch.Add(contracts.ChangeDeckAdd, d.ID, d.UpdatedAt.UnixMilli(), nil, map[string]any{"name": name})
			id = d.ID
			names[strings.ToLower(name)] = id
			created = append(created, name)
		}
		it.deckID = id
	}
	return created, nil
}
