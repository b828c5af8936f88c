package library

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// NoteService manages the acting user's notes.
type NoteService struct{ *kernel.Deps }

var _ ports.NoteService = (*NoteService)(nil)

const idemScopeNotes = "add_notes"

// NoteType returns the stock note type of a name.
func NoteType(name string) (notes.Type, error) {
	if t, ok := notes.StockByName(name); ok {
		return t, nil
	}
	return notes.Type{}, fmt.Errorf("unknown note type %q; use one of %s", name, strings.Join(contracts.StockNoteTypes, ", "))
}

// fieldsByName checks named field values against a note type and returns
// base with them applied, in the type's order.
func fieldsByName(t notes.Type, base []string, named map[string]string) ([]string, error) {
	out := make([]string, len(t.Fields))
	copy(out, base)
	for name, v := range named {
		i := slices.Index(t.Fields, name)
		if i < 0 {
			return nil, fmt.Errorf("note type %q has no field %q; its fields are %s", t.Name, name, strings.Join(t.Fields, ", "))
		}
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("field %q must be UTF-8 text without NUL characters", name)
		}
		if n := utf8.RuneCountInString(v); n > contracts.MaxCardSideLen {
			return nil, fmt.Errorf("field %q is %d characters; the limit is %d", name, n, contracts.MaxCardSideLen)
		}
		out[i] = strings.TrimSpace(v)
	}
	return out, nil
}

// MadeCard is one card a note makes, cleaned and hashed.
type MadeCard struct {
	// Ord is the card's template ordinal in its note type.
	Ord int
	// Card is the card to store.
	Card contracts.NewCard
	// Hash is the content fingerprint of the card's sides.
	Hash string
}

// MakeCards renders a note's cards and checks each like a card of
// add_cards.
func MakeCards(t notes.Type, fields, tags []string, deckName string) ([]MadeCard, error) {
	cards, err := t.Cards(notes.Note{Fields: fields, Tags: tags, Deck: deckName})
	if err != nil {
		return nil, err
	}
	out := make([]MadeCard, 0, len(cards))
	for _, c := range cards {
		clean, err := cardtext.Clean(contracts.NewCard{Front: templateBreaks(c.Front), Back: templateBreaks(c.Back), Tags: tags})
		if err != nil {
			return nil, fmt.Errorf("card %d: %v", c.Ord+1, err)
		}
		out = append(out, MadeCard{Ord: c.Ord, Card: clean, Hash: cardtext.Hash(clean.Front, clean.Back)})
	}
	return out, nil
}

var templateBR = regexp.MustCompile(`(?i)<br\s*/?>\s*(\n|$)`)

// templateBreaks turns the <br> line breaks of the stock templates into
// the line breaks of the card content format (fields are already in it).
func templateBreaks(s string) string {
	return strings.TrimSpace(templateBR.ReplaceAllString(s, "\n"))
}

// AddNotes adds notes with their cards in one transaction, one outcome per
// note: created (ID the note's, CardIDs its cards), duplicate (a card of
// the note is already in the deck, or made by an earlier note of the
// batch) or invalid.
func (s *NoteService) AddNotes(ctx context.Context, args contracts.AddNotesArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("notes", len(args.Notes), contracts.MaxNoteBulk); err != nil {
		return contracts.BulkResult{}, err
	}
	if len(args.IdempotencyKey) > maxIdemKeyLen {
		return contracts.BulkResult{}, contracts.Errorf(contracts.KindInvalid, "idempotencyKey is %d characters; the limit is %d", len(args.IdempotencyKey), maxIdemKeyLen)
	}
	fp := fingerprint(struct {
		DeckID string              `json:"deckId"`
		Notes  []contracts.NewNote `json:"notes"`
	}{args.DeckID, args.Notes})
	var res contracts.BulkResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		deck, err := LoadDeck(ctx, tx, uid, args.DeckID)
		if err != nil {
			return err
		}
		return idempotent(ctx, tx, uid, idemScopeNotes, args.IdempotencyKey, fp, now, &res, func() error {
			var err error
			res, err = s.addNotes(ctx, tx, uid, deck, args.Notes, now)
			return err
		})
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	return res, nil
}

func (s *NoteService) addNotes(ctx context.Context, tx ports.Stores, uid string, deck contracts.Deck, in []contracts.NewNote, now time.Time) (contracts.BulkResult, error) {
	res := contracts.BulkResult{DeckID: deck.ID, Items: make([]contracts.ItemOutcome, len(in)), Counts: map[string]int{}}
	type prepared struct {
		row   ports.NoteRow
		cards []MadeCard
	}
	types, err := resolveAddTypes(ctx, tx, uid, in)
	if err != nil {
		return res, err
	}
	preps := make([]*prepared, len(in))
	var hashes []string
	for i, n := range in {
		res.Items[i] = contracts.ItemOutcome{Index: i}
		p, err := func() (*prepared, error) {
			t := types[i].t
			fields, err := fieldsByName(t, nil, n.Fields)
			if err != nil {
				return nil, err
			}
			tags, err := cardtext.NormalizeTags(n.Tags)
			if err != nil {
				return nil, err
			}
			cards, err := MakeCards(t, fields, tags, deck.Name)
			if err != nil {
				return nil, err
			}
			id := s.IDs.NewID()
			return &prepared{row: ports.NoteRow{ID: id, NoteType: types[i].ref, GUID: id, Fields: fields, Tags: tags, Version: 1, CreatedAt: now, UpdatedAt: now}, cards: cards}, nil
		}()
		if err != nil {
			res.Items[i].Status, res.Items[i].Reason = contracts.OutcomeInvalid, err.Error()
			continue
		}
		missing, err := missingMedia(ctx, s.Deps, tx, uid, [][]string{p.row.Fields})
		if err != nil {
			return res, err
		}
		if id, ok := missing[0]; ok {
			res.Items[i].Status, res.Items[i].Reason = contracts.OutcomeInvalid, missingMediaReason(id)
			continue
		}
		preps[i] = p
		for _, c := range p.cards {
			hashes = append(hashes, c.Hash)
		}
	}
	existing := map[string]string{}
	if len(hashes) > 0 {
		var err error
		if existing, err = tx.Cards().HashesInDeck(ctx, uid, deck.ID, hashes); err != nil {
			return res, kernel.Fail(err)
		}
	}
	made := map[string]string{} // hash → card id made earlier in the batch
	var noteRows []ports.NoteRow
	var cardRows []ports.CardRow
	for i, p := range preps {
		if p == nil {
			continue
		}
		out := &res.Items[i]
		for _, c := range p.cards {
			if id, ok := existing[c.Hash]; ok {
				out.Status, out.ExistingID = contracts.OutcomeDuplicate, id
				out.Reason = fmt.Sprintf("card %d duplicates a card already in this deck", c.Ord+1)
				break
			}
			if id, ok := made[c.Hash]; ok {
				out.Status, out.ExistingID = contracts.OutcomeDuplicate, id
				out.Reason = fmt.Sprintf("card %d duplicates a card of an earlier note of this batch", c.Ord+1)
				break
			}
		}
		if out.Status != "" {
			continue
		}
		out.Status, out.ID = contracts.OutcomeCreated, p.row.ID
		noteRows = append(noteRows, p.row)
		for _, c := range p.cards {
			row := ports.CardRow{Hash: c.Hash, Version: 1, Card: contracts.Card{
				ID: s.IDs.NewID(), DeckID: deck.ID, NoteID: p.row.ID, Ord: c.Ord, Front: c.Card.Front, Back: c.Card.Back, Tags: c.Card.Tags,
				State: NewCardState(now), CreatedAt: now, UpdatedAt: now,
			}}
			made[c.Hash] = row.ID
			out.CardIDs = append(out.CardIDs, row.ID)
			cardRows = append(cardRows, row)
		}
	}
	if len(cardRows) > 0 {
		// Limits before the write: the cards count against the daily
		// quota and the card cap.
		if err := s.ChargeWrites(ctx, tx, uid, nil, len(cardRows), len(cardRows)); err != nil {
			return res, err
		}
	}
	if err := tx.Notes().InsertNotes(ctx, uid, noteRows); err != nil {
		return res, kernel.Fail(err)
	}
	if err := tx.Cards().InsertCards(ctx, uid, cardRows); err != nil {
		if contracts.IsKind(err, contracts.KindConflict) {
			return res, contracts.Errorf(contracts.KindConflict, "another request added some of these cards at the same time; retry the call")
		}
		return res, kernel.Fail(err)
	}
	for _, it := range res.Items {
		res.Counts[string(it.Status)]++
	}
	// Additions record their ids, one card.add per card: undoing them
	// moves the cards to the trash, which is what deleting a note is (its
	// cards go; the note keeps nothing to study).
	var ch kernel.Changes
	for _, c := range cardRows {
		ch.Add(contracts.ChangeCardAdd, c.ID, c.Version, nil, nil)
	}
	return res, ch.Write(ctx, tx, s.Deps)
}

// UpdateNotes changes notes' fields and tags and re-makes their cards in
// place: a card keeps its id, deck, scheduling and history and gets the
// new front, back and tags; a card the note now makes for the first time
// (a new cloze number, "Add Reverse" filled in) is added as new to the
// deck of the note's first card; a card the note no longer makes is left
// as it is, and the outcome's reason says so.
func (s *NoteService) UpdateNotes(ctx context.Context, args contracts.UpdateNotesArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("updates", len(args.Updates), contracts.MaxNoteBulk); err != nil {
		return contracts.BulkResult{}, err
	}
	var res contracts.BulkResult
	// A dry run is this very transaction, rolled back.
	err = kernel.InTxOrDry(ctx, s.Store, args.DryRun, func(tx ports.Stores) error {
		now := s.Now()
		res = contracts.BulkResult{Items: make([]contracts.ItemOutcome, len(args.Updates)), Counts: map[string]int{}}
		var ch kernel.Changes
		ids := make([]string, 0, len(args.Updates))
		for _, u := range args.Updates {
			if kernel.PlausibleID(u.ID) {
				ids = append(ids, u.ID)
			}
		}
		rows, err := tx.Notes().GetNotes(ctx, uid, ids)
		if err != nil {
			return kernel.Fail(err)
		}
		byID := map[string]ports.NoteRow{}
		for _, r := range rows {
			byID[r.ID] = r
		}
		for i, u := range args.Updates {
			out := &res.Items[i]
			out.Index, out.ID = i, u.ID
			row, ok := byID[u.ID]
			if !ok {
				out.Status, out.Reason = contracts.OutcomeNotFound, "no note with this id"
				continue
			}
			next, err := s.updateNote(ctx, tx, uid, row, u, now, out, &ch, nil)
			if err != nil {
				return err
			}
			byID[u.ID] = next
		}
		for _, it := range res.Items {
			res.Counts[string(it.Status)]++
		}
		if args.DryRun {
			res.DryRun, res.Changes = true, ch.Preview()
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	return res, nil
}

// ApplyNotePatch applies one note patch in tx, as update_notes does for
// each of its items, recording the change in ch; undo_changes puts a
// note back through it. The outcome says whether it applied; rewritten
// holds the note's cards it rewrote (their text or tags), each with the
// version it had (it moved one on); the error fails the caller's
// transaction.
func (s *NoteService) ApplyNotePatch(ctx context.Context, tx ports.Stores, uid string, u contracts.NotePatch, ch *kernel.Changes) (out contracts.ItemOutcome, rewritten map[string]int64, err error) {
	out = contracts.ItemOutcome{ID: u.ID}
	rows, err := tx.Notes().GetNotes(ctx, uid, []string{u.ID})
	if err != nil {
		return out, nil, kernel.Fail(err)
	}
	if len(rows) == 0 {
		out.Status, out.Reason = contracts.OutcomeNotFound, "no note with this id"
		return out, nil, nil
	}
	rewritten = map[string]int64{}
	_, err = s.updateNote(ctx, tx, uid, rows[0], u, s.Now(), &out, ch, rewritten)
	return out, rewritten, err
}

// updateNote applies one patch, filling out and adding a note.update
// record to ch (the previous values of the fields and tags it changed)
// and, to rewritten when not nil, the cards it rewrote with their
// versions before; an error fails the whole call.
func (s *NoteService) updateNote(ctx context.Context, tx ports.Stores, uid string, row ports.NoteRow, u contracts.NotePatch, now time.Time,
	out *contracts.ItemOutcome, ch *kernel.Changes, rewritten map[string]int64) (ports.NoteRow, error) {
	invalid := func(err error) (ports.NoteRow, error) {
		out.Status, out.Reason = contracts.OutcomeInvalid, err.Error()
		return row, nil
	}
	if len(u.Fields) == 0 && u.Tags == nil {
		return invalid(fmt.Errorf("nothing to change: give fields or tags"))
	}
	t, err := resolveNoteType(ctx, tx, uid, row.NoteType)
	if err != nil {
		if contracts.IsKind(err, contracts.KindInternal) || contracts.IsKind(err, contracts.KindUnavailable) {
			return row, err
		}
		return invalid(err)
	}
	next := row
	if next.Fields, err = fieldsByName(t, row.Fields, u.Fields); err != nil {
		return invalid(err)
	}
	if u.Tags != nil {
		if next.Tags, err = cardtext.NormalizeTags(*u.Tags); err != nil {
			return invalid(err)
		}
	}
	missing, err := missingMedia(ctx, s.Deps, tx, uid, [][]string{next.Fields})
	if err != nil {
		return row, err
	}
	if id, ok := missing[0]; ok {
		return invalid(errors.New(missingMediaReason(id)))
	}
	cards, err := tx.Notes().CardsOfNotes(ctx, uid, []string{row.ID})
	if err != nil {
		return row, kernel.Fail(err)
	}
	deckID, deckName := "", ""
	if len(cards) > 0 {
		deckID = cards[0].DeckID
		d, err := LoadDeck(ctx, tx, uid, deckID)
		if err != nil {
			return row, err
		}
		deckName = d.Name
	}
	made, err := MakeCards(t, next.Fields, next.Tags, deckName)
	if err != nil {
		return invalid(err)
	}
	byOrd := map[int]ports.CardRow{}
	for _, c := range cards {
		byOrd[c.Ord] = c
	}
	// A re-made card must not collide with another card of its deck.
	for _, m := range made {
		d := deckID
		if c, ok := byOrd[m.Ord]; ok {
			if c.Hash == m.Hash {
				continue
			}
			d = c.DeckID
		}
		if d == "" {
			continue
		}
		hit, err := tx.Cards().HashesInDeck(ctx, uid, d, []string{m.Hash})
		if err != nil {
			return row, kernel.Fail(err)
		}
		if id, ok := hit[m.Hash]; ok {
			out.Status, out.ExistingID = contracts.OutcomeConflict, id
			out.Reason = fmt.Sprintf("card %d would duplicate another card of its deck", m.Ord+1)
			return row, nil
		}
	}
	var fresh []ports.CardRow
	seen := map[int]bool{}
	for _, m := range made {
		seen[m.Ord] = true
		c, ok := byOrd[m.Ord]
		if !ok {
			if deckID == "" {
				continue // the note lost all its cards; nowhere to put new ones
			}
			c := ports.CardRow{Hash: m.Hash, Version: 1, Card: contracts.Card{
				ID: s.IDs.NewID(), DeckID: deckID, NoteID: row.ID, Ord: m.Ord, Front: m.Card.Front, Back: m.Card.Back, Tags: m.Card.Tags,
				State: NewCardState(now), CreatedAt: now, UpdatedAt: now,
			}}
			fresh = append(fresh, c)
			out.CardIDs = append(out.CardIDs, c.ID)
			continue
		}
		out.CardIDs = append(out.CardIDs, c.ID)
		if c.Front == m.Card.Front && c.Back == m.Card.Back && slices.Equal(c.Tags, m.Card.Tags) {
			continue
		}
		c.Front, c.Back, c.Tags, c.Hash, c.UpdatedAt = m.Card.Front, m.Card.Back, m.Card.Tags, m.Hash, now
		if err := tx.Cards().UpdateCard(ctx, uid, c); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return row, contracts.Errorf(contracts.KindConflict, "note %s changed while it was being updated; retry the call", row.ID)
			}
			return row, kernel.Fail(err)
		}
		if rewritten != nil {
			rewritten[c.ID] = c.Version
		}
	}
	if err := tx.Cards().InsertCards(ctx, uid, fresh); err != nil {
		return row, kernel.Fail(err)
	}
	for _, c := range fresh {
		ch.Add(contracts.ChangeCardAdd, c.ID, c.Version, nil, nil)
	}
	next.UpdatedAt = now
	if err := tx.Notes().UpdateNote(ctx, uid, next); err != nil {
		if contracts.IsKind(err, contracts.KindConflict) {
			return row, contracts.Errorf(contracts.KindConflict, "note %s changed while it was being updated; retry the call", row.ID)
		}
		return row, kernel.Fail(err)
	}
	next.Version++
	out.Status = contracts.OutcomeUpdated
	prev, after := NoteChange(t.Fields, row, next)
	ch.Add(contracts.ChangeNoteUpdate, row.ID, next.Version, prev, after)
	var stale []string
	for _, c := range cards {
		if !seen[c.Ord] {
			stale = append(stale, c.ID)
		}
	}
	if len(stale) > 0 {
		out.Reason = fmt.Sprintf("the note no longer makes card(s) %s; they were left as they are (delete them with delete_cards if unwanted)", strings.Join(stale, ", "))
	}
	return next, nil
}

// GetNote returns one note with its cards.
func (s *NoteService) GetNote(ctx context.Context, noteID string) (contracts.Note, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Note{}, err
	}
	notFound := contracts.Errorf(contracts.KindNotFound, "note %q not found; a card's noteId names its note", noteID)
	if !kernel.PlausibleID(noteID) {
		return contracts.Note{}, notFound
	}
	rows, err := s.Store.Notes().GetNotes(ctx, uid, []string{noteID})
	if err != nil {
		return contracts.Note{}, kernel.Fail(err)
	}
	if len(rows) == 0 {
		return contracts.Note{}, notFound
	}
	row := rows[0]
	cards, err := s.Store.Notes().CardsOfNotes(ctx, uid, []string{noteID})
	if err != nil {
		return contracts.Note{}, kernel.Fail(err)
	}
	n := contracts.Note{ID: row.ID, NoteType: row.NoteType, Fields: map[string]string{}, Tags: row.Tags, Cards: []contracts.NoteCard{},
		CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
	if t, err := resolveNoteType(ctx, s.Store, uid, row.NoteType); err == nil {
		n.NoteType, n.FieldNames = t.Name, t.Fields
		if IsStoredType(row.NoteType) {
			n.NoteTypeID = row.NoteType
		}
	} else if !contracts.IsKind(err, contracts.KindInvalid) && !contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Note{}, err
	}
	for i, v := range row.Fields {
		if i < len(n.FieldNames) {
			n.Fields[n.FieldNames[i]] = v
		}
	}
	for _, c := range cards {
		n.Cards = append(n.Cards, contracts.NoteCard{ID: c.ID, Ord: c.Ord, DeckID: c.DeckID, Front: c.Front, Phase: c.State.Phase})
	}
	return n, nil
}
