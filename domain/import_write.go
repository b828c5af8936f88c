package domain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// planReviews turns the package's review log into review-log rows of the
// imported cards (leaving out those an earlier import already added) and
// replays the log through FSRS for cards whose state has no memory state.
func (im *importer) planReviews(ctx context.Context) error {
	byKey := map[int64]*cardWork{}
	anyOld := false
	for _, n := range im.notes {
		for _, c := range n.cards {
			byKey[c.key] = c
			anyOld = anyOld || c.existing != nil
		}
	}
	have := map[string]bool{} // card id + reviewed-at ms of reviews the account has
	if anyOld {
		for after := ""; ; {
			page, err := im.s.store.Reviews().ListReviews(ctx, im.uid, after, 1000)
			if err != nil {
				return fail(err)
			}
			for _, r := range page {
				have[fmt.Sprintf("%s@%d", r.CardID, r.ReviewedAt.UnixMilli())] = true
			}
			if len(page) < 1000 {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	day, err := learnerDay(ctx, im.s.store, im.uid)
	if err != nil {
		return err
	}
	revs := slices.Clone(im.pkg.Reviews)
	sort.SliceStable(revs, func(i, j int) bool { return revs[i].Key < revs[j].Key })
	byCard := map[*cardWork][]ports.AnkiReview{}
	for i, r := range revs {
		if i%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			im.progress(10, "reading the review log")
		}
		c, ok := byKey[r.CardKey]
		if !ok {
			im.skip("review", "its card was not imported", "", 1)
			continue
		}
		at := time.UnixMilli(r.Key).UTC()
		if have[fmt.Sprintf("%s@%d", c.id, r.Key)] {
			continue
		}
		kind := r.Kind
		if kind == "" {
			kind = ports.ReviewKindReview
		}
		im.reviews = append(im.reviews, ports.ReviewLog{ID: im.s.ids.NewID(), UserID: im.uid, CardID: c.id, DeckID: c.deckID,
			Rating: r.Rating, PrevPhase: r.PrevPhase, State: r.State, ReviewedAt: at, DurationMs: r.DurationMs, Kind: kind,
			Day: dayNumber(day, at), PrevInterval: r.PrevInterval})
		byCard[c] = append(byCard[c], r)
	}
	for c, rs := range byCard {
		if c.state.Phase != contracts.PhaseNew && c.state.Stability == 0 {
			im.replay(ctx, c, rs)
		}
	}
	return nil
}

// replay computes a card's FSRS memory state from its reviews under its
// deck's settings, keeping the package's due date and phase.
func (im *importer) replay(ctx context.Context, c *cardWork, rs []ports.AnkiReview) {
	set := im.settingsOf(ctx, c.deckID)
	st := newCardState(time.UnixMilli(rs[0].Key).UTC())
	n := 0
	for _, r := range rs {
		if (r.Kind != "" && r.Kind != ports.ReviewKindReview) || !slices.Contains(contracts.Ratings, r.Rating) {
			continue
		}
		next, err := im.s.sched.Review(st, set, time.UnixMilli(r.Key).UTC(), r.Rating)
		if err != nil {
			return
		}
		st, n = next, n+1
	}
	if n > 0 {
		c.state.Stability, c.state.Difficulty = st.Stability, st.Difficulty
		if c.state.LastReview == nil {
			c.state.LastReview = st.LastReview
		}
	}
}

// settingsOf returns a deck's settings: a new deck's from the package, an
// existing one's from the store (defaults when it cannot be read).
func (im *importer) settingsOf(ctx context.Context, deckID string) contracts.DeckSettings {
	for _, d := range im.newDecks {
		if d.ID == deckID {
			return d.Settings.WithDefaults()
		}
	}
	d, err := im.s.store.Decks().DeckWithoutCounts(ctx, im.uid, deckID)
	if err != nil {
		return contracts.DefaultDeckSettings()
	}
	return d.Settings.WithDefaults()
}

// importChunk is how many rows one bulk insert writes.
const importChunk = 500

// write stores everything planned in one transaction.
func (im *importer) write(ctx context.Context) error {
	newCards := 0
	for _, n := range im.notes {
		for _, c := range n.cards {
			if c.existing == nil {
				newCards++
			}
		}
	}
	rep := im.rep
	err := im.s.store.InTx(ctx, func(tx ports.Stores) error {
		im.rep = rep // a retried transaction starts over
		im.droppedCards = map[string]bool{}
		held, err := im.s.checkHoldings(ctx, tx, im.uid, 0, newCards)
		if err != nil {
			return err
		}
		if err := im.s.checkDecks(held, len(im.newDecks)); err != nil {
			return err
		}
		for _, d := range im.newDecks {
			if err := newPreset(ctx, tx, im.s.deps, im.uid, d.Name, &d.Settings); err != nil {
				return err
			}
			if err := tx.Decks().CreateDeck(ctx, im.uid, d); err != nil {
				if contracts.IsKind(err, contracts.KindConflict) {
					return contracts.Errorf(contracts.KindConflict, "deck %q was created while the import ran; start the import again", d.Name)
				}
				return fail(err)
			}
			im.rep.Presets++
			im.rep.DecksCreated = append(im.rep.DecksCreated, d.Name)
		}
		notesOut, cardsOut, err := im.newRows(ctx, tx)
		if err != nil {
			return err
		}
		for i := 0; i < len(notesOut); i += importChunk {
			if err := tx.Notes().InsertNotes(ctx, im.uid, notesOut[i:min(i+importChunk, len(notesOut))]); err != nil {
				return importConflict(err)
			}
		}
		for i := 0; i < len(cardsOut); i += importChunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := tx.Cards().InsertCards(ctx, im.uid, cardsOut[i:min(i+importChunk, len(cardsOut))]); err != nil {
				return importConflict(err)
			}
		}
		im.rep.NotesCreated, im.rep.CardsCreated = len(notesOut), len(cardsOut)
		if err := im.updateOld(ctx, tx); err != nil {
			return err
		}
		for i, r := range im.reviews {
			if i%1000 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if im.droppedCards[r.CardID] {
				im.skip("review", "its card was not imported", "", 1)
				continue
			}
			if err := tx.Reviews().AppendReview(ctx, r); err != nil {
				return fail(err)
			}
			im.rep.Reviews++
		}
		return nil
	})
	return err
}

func importConflict(err error) error {
	if contracts.IsKind(err, contracts.KindConflict) {
		return contracts.Errorf(contracts.KindConflict, "notes or cards of this package were added while the import ran; start the import again")
	}
	return fail(err)
}

// newRows returns the rows of the new notes and cards, leaving out cards
// whose front and back a card of their deck already has.
func (im *importer) newRows(ctx context.Context, tx ports.Stores) ([]ports.NoteRow, []ports.CardRow, error) {
	hashes := map[string][]string{}
	for _, n := range im.notes {
		for _, c := range n.cards {
			if c.existing == nil {
				hashes[c.deckID] = append(hashes[c.deckID], c.made.hash)
			}
		}
	}
	taken := map[string]bool{} // deck + hash
	for d, hs := range hashes {
		for i := 0; i < len(hs); i += importChunk {
			m, err := tx.Cards().HashesInDeck(ctx, im.uid, d, hs[i:min(i+importChunk, len(hs))])
			if err != nil {
				return nil, nil, fail(err)
			}
			for h := range m {
				taken[d+h] = true
			}
		}
	}
	var noteRows []ports.NoteRow
	var cardRows []ports.CardRow
	for _, n := range im.notes {
		kept := 0
		for _, c := range n.cards {
			if c.existing != nil {
				continue
			}
			if taken[c.deckID+c.made.hash] {
				im.skip("card", "its deck already has a card with the same front and back", c.made.card.Front, 1)
				im.droppedCards[c.id] = true
				continue
			}
			taken[c.deckID+c.made.hash] = true
			kept++
			cardRows = append(cardRows, ports.CardRow{Hash: c.made.hash, Version: 1, Card: contracts.Card{
				ID: c.id, DeckID: c.deckID, NoteID: n.row.ID, Ord: c.made.ord, Front: c.made.card.Front, Back: c.made.card.Back,
				Tags: c.made.card.Tags, Suspended: c.suspended, State: c.state, CreatedAt: c.created, UpdatedAt: im.now}})
		}
		if !n.existing {
			if kept == 0 {
				im.skip("note", "every card of the note duplicates a card already in its deck", n.row.GUID, 1)
				continue
			}
			noteRows = append(noteRows, n.row)
		}
	}
	return noteRows, cardRows, nil
}

// updateOld updates the notes the account had and their cards: fields,
// tags, deck, suspension and the scheduling state the package carries.
func (im *importer) updateOld(ctx context.Context, tx ports.Stores) error {
	for _, n := range im.notes {
		if !n.existing {
			continue
		}
		if err := tx.Notes().UpdateNote(ctx, im.uid, n.row); err != nil {
			return importConflict(err)
		}
		im.rep.NotesUpdated++
		for _, c := range n.cards {
			if c.existing == nil {
				continue
			}
			row := *c.existing
			row.DeckID, row.Front, row.Back, row.Tags, row.Suspended, row.Hash, row.UpdatedAt =
				c.deckID, c.made.card.Front, c.made.card.Back, c.made.card.Tags, c.suspended, c.made.hash, im.now
			if err := tx.Cards().UpdateCard(ctx, im.uid, row); err != nil {
				if contracts.IsKind(err, contracts.KindConflict) {
					im.skip("card", "its new front and back duplicate another card of its deck; the card kept its text", row.Front, 1)
					row = *c.existing
				} else {
					return fail(err)
				}
			} else {
				row.Version++
			}
			if err := tx.Cards().UpdateState(ctx, im.uid, row.ID, row.Version, c.state, im.now); err != nil {
				return importConflict(err)
			}
			im.rep.CardsUpdated++
		}
	}
	return nil
}
