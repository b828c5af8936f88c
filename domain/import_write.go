package domain

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// planReviews replays the package's review log through FSRS for the
// cards whose state has no memory state. Only those cards' reviews are
// gathered (by card, in time order); the review-log rows are made later,
// a chunk at a time, by stageReviews.
func (im *importer) planReviews(ctx context.Context) error {
	im.cardByKey = map[int64]*cardWork{}
	need := map[int64]bool{}
	for _, n := range im.notes {
		for _, c := range n.cards {
			im.cardByKey[c.key] = c
			if c.state.Phase != contracts.PhaseNew && c.state.Stability == 0 {
				need[c.key] = true
			}
		}
	}
	if len(need) == 0 {
		return nil
	}
	byCard := map[int64][]ports.AnkiReview{}
	for i, r := range im.pkg.Reviews {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if need[r.CardKey] {
			byCard[r.CardKey] = append(byCard[r.CardKey], r)
		}
	}
	for key, rs := range byCard {
		slices.SortStableFunc(rs, func(a, b ports.AnkiReview) int { return cmp.Compare(a.Key, b.Key) })
		im.replay(ctx, im.cardByKey[key], rs)
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

// importChunk is how many rows one staging transaction writes: small
// enough that no other writer waits long for it (issue 13 §6).
const importChunk = 1000

// stageTouchEvery is how often a running import marks its stage alive;
// the purge drops stages untouched for importStageStale.
const stageTouchEvery = time.Minute

// importStageStale is how long a stage may go untouched before the purge
// takes it for the leftover of an import that died.
const importStageStale = time.Hour

// write stages the new notes, cards and review logs in chunks of short
// transactions, where no read sees them, then publishes them with the new
// decks and the updates of notes the account had in one short
// transaction. Whatever happens, the staged rows are dropped afterwards.
func (im *importer) write(ctx context.Context) error {
	if im.opts.JobID != "" { // an earlier attempt of the job may have left a stage
		left, err := im.s.store.ImportStages().StagesToDrop(ctx, im.opts.JobID, time.Time{}, 16)
		if err != nil {
			return fail(err)
		}
		im.s.dropStages(ctx, left)
	}
	im.stage = ports.ImportStage{ID: im.s.ids.NewID(), UserID: im.uid, JobID: im.opts.JobID}
	if err := im.s.store.ImportStages().CreateStage(ctx, im.stage, im.s.now()); err != nil {
		return err
	}
	im.touched = im.s.now()
	defer im.s.dropStages(context.WithoutCancel(ctx), []string{im.stage.ID})
	im.droppedCards = map[string]bool{}
	im.progress(0, "staging notes and cards")
	newCards, err := im.stageNotes(ctx)
	if err != nil {
		return err
	}
	im.progress(0, "staging the review log")
	reviews, err := im.stageReviews(ctx)
	if err != nil {
		return err
	}
	im.progress(0, "publishing")
	rep := im.rep
	err = im.s.store.InTx(ctx, func(tx ports.Stores) error {
		im.rep = rep // a retried transaction starts over
		return im.publish(ctx, tx, newCards, reviews)
	})
	if err == nil {
		im.progress(0, "published")
	}
	return err
}

// publish creates the new decks, copies the stage into the live tables
// and updates the notes the account had, in tx.
func (im *importer) publish(ctx context.Context, tx ports.Stores, newCards, reviews int) error {
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
	if err := im.publishTypes(ctx, tx); err != nil {
		return err
	}
	pub, err := tx.ImportStages().PublishStage(ctx, im.uid, im.stage.ID, im.s.now())
	if err != nil {
		return importConflict(err)
	}
	if pub.CardsSkipped > 0 {
		im.skip("card", "its deck already has a card with the same front and back", "", pub.CardsSkipped)
	}
	if lost := reviews - pub.Reviews; lost > 0 {
		im.skip("review", "its card was not imported", "", lost)
	}
	im.rep.NotesCreated, im.rep.CardsCreated, im.rep.Reviews = pub.Notes, pub.Cards, pub.Reviews
	return im.updateOld(ctx, tx)
}

// touch marks the stage alive now and then, so the purge leaves it.
func (im *importer) touch(ctx context.Context) error {
	if now := im.s.now(); now.Sub(im.touched) >= stageTouchEvery {
		im.touched = now
		return fail(im.s.store.ImportStages().TouchStage(ctx, im.stage.ID, now))
	}
	return nil
}

// stageNotes stages the new notes and cards, a chunk a transaction, and
// returns how many cards it staged.
func (im *importer) stageNotes(ctx context.Context) (int, error) {
	taken, err := im.takenHashes(ctx)
	if err != nil {
		return 0, err
	}
	st := im.s.store.ImportStages()
	var noteRows []ports.NoteRow
	var cardRows []ports.CardRow
	staged := 0
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.StageNotes(ctx, im.uid, im.stage.ID, noteRows); err != nil {
			return fail(err)
		}
		if err := st.StageCards(ctx, im.uid, im.stage.ID, cardRows); err != nil {
			return fail(err)
		}
		im.progress(int64(len(noteRows)), "staging notes and cards")
		staged += len(cardRows)
		noteRows, cardRows = noteRows[:0], cardRows[:0]
		return im.touch(ctx)
	}
	for _, n := range im.notes {
		kept := 0
		for _, c := range n.cards {
			if c.existing != nil {
				continue
			}
			if taken[c.deckID+"\x00"+c.made.hash] {
				im.skip("card", "its deck already has a card with the same front and back", c.made.card.Front, 1)
				im.droppedCards[c.id] = true
				continue
			}
			taken[c.deckID+"\x00"+c.made.hash] = true
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
		if len(cardRows) >= importChunk || len(noteRows) >= importChunk {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return staged, nil
}

// takenHashes returns deck id + NUL + hash of the new cards' hashes their
// decks already have, one set-based read a chunk.
func (im *importer) takenHashes(ctx context.Context) (map[string]bool, error) {
	hashes := map[string][]string{}
	for _, n := range im.notes {
		for _, c := range n.cards {
			if c.existing == nil {
				hashes[c.deckID] = append(hashes[c.deckID], c.made.hash)
			}
		}
	}
	taken := map[string]bool{}
	for d, hs := range hashes {
		for i := 0; i < len(hs); i += importChunk {
			m, err := im.s.store.Cards().HashesInDeck(ctx, im.uid, d, hs[i:min(i+importChunk, len(hs))])
			if err != nil {
				return nil, fail(err)
			}
			for h := range m {
				taken[d+"\x00"+h] = true
			}
		}
	}
	return taken, nil
}

// stageReviews turns the package's review log into review-log rows of the
// imported cards (leaving out those the account has already: an earlier
// import added them) and stages them a chunk a transaction; it returns
// how many it staged.
func (im *importer) stageReviews(ctx context.Context) (int, error) {
	have, err := im.reviewsHad(ctx)
	if err != nil {
		return 0, err
	}
	day, err := learnerDay(ctx, im.s.store, im.uid)
	if err != nil {
		return 0, err
	}
	st := im.s.store.ImportStages()
	rows := make([]ports.ReviewLog, 0, importChunk)
	staged := 0
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.StageReviews(ctx, im.uid, im.stage.ID, rows); err != nil {
			return fail(err)
		}
		im.progress(int64(len(rows)/100), "staging the review log")
		staged += len(rows)
		rows = rows[:0]
		return im.touch(ctx)
	}
	for _, r := range im.pkg.Reviews {
		c, ok := im.cardByKey[r.CardKey]
		if !ok || im.droppedCards[c.id] {
			im.skip("review", "its card was not imported", "", 1)
			continue
		}
		if have[reviewKey{c.id, r.Key}] {
			continue
		}
		kind := r.Kind
		if kind == "" {
			kind = ports.ReviewKindReview
		}
		at := time.UnixMilli(r.Key).UTC()
		rows = append(rows, ports.ReviewLog{ID: im.s.ids.NewID(), UserID: im.uid, CardID: c.id, DeckID: c.deckID,
			Rating: r.Rating, PrevPhase: r.PrevPhase, State: r.State, ReviewedAt: at, DurationMs: r.DurationMs, Kind: kind,
			Day: dayNumber(day, at), PrevInterval: r.PrevInterval})
		if len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return staged, nil
}

// reviewKey is a review of a card here at a time (Unix ms).
type reviewKey struct {
	cardID string
	at     int64
}

// reviewsHad returns the reviews the account has of the cards the import
// updates (none when it updates none).
func (im *importer) reviewsHad(ctx context.Context) (map[reviewKey]bool, error) {
	have := map[reviewKey]bool{}
	anyOld := false
	for _, n := range im.notes {
		for _, c := range n.cards {
			anyOld = anyOld || c.existing != nil
		}
	}
	if !anyOld {
		return have, nil
	}
	for after := ""; ; {
		page, err := im.s.store.Reviews().ListReviews(ctx, im.uid, after, 1000)
		if err != nil {
			return nil, fail(err)
		}
		for _, r := range page {
			have[reviewKey{r.CardID, r.ReviewedAt.UnixMilli()}] = true
		}
		if len(page) < 1000 {
			return have, nil
		}
		after = page[len(page)-1].ID
	}
}

// PurgeStages drops, for the purge scheduler, the stages of imports that
// published (their rows are copies now) or died (untouched for
// importStageStale): up to limit staged rows in all, a batch a
// transaction. It returns how many stages it dropped whole.
func (s *ImportService) PurgeStages(ctx context.Context, limit int) (int, error) {
	ids, err := s.store.ImportStages().StagesToDrop(ctx, "", s.now().Add(-importStageStale), 16)
	if err != nil {
		return 0, fail(err)
	}
	n := 0
	for _, id := range ids {
		for limit > 0 {
			batch := min(limit, importChunk*2)
			gone, err := s.store.ImportStages().DropStage(ctx, id, batch)
			if err != nil {
				return n, fail(err)
			}
			limit -= batch
			if gone {
				n++
				break
			}
		}
	}
	return n, nil
}

// dropStages deletes stages' rows in small transactions (the staged rows
// of an import that published, failed or was canceled).
func (s *ImportService) dropStages(ctx context.Context, ids []string) {
	for _, id := range ids {
		for {
			gone, err := s.store.ImportStages().DropStage(ctx, id, importChunk*2)
			if err != nil || gone {
				break
			}
		}
	}
}

func importConflict(err error) error {
	if contracts.IsKind(err, contracts.KindConflict) {
		return contracts.Errorf(contracts.KindConflict, "notes or cards of this package were added while the import ran; start the import again")
	}
	return fail(err)
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
