package exchange

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// replayChunk replays a chunk's review log through FSRS for the chunk's
// cards whose state has no memory state (by card, in time order).
func (im *importer) replayChunk(ctx context.Context, works []*noteWork, reviews []ports.AnkiReview) {
	need := map[int64]*cardWork{}
	for _, n := range works {
		for _, c := range n.cards {
			if c.state.Phase != contracts.PhaseNew && c.state.Stability == 0 {
				need[c.key] = c
			}
		}
	}
	if len(need) == 0 {
		return
	}
	byCard := map[int64][]ports.AnkiReview{}
	for _, r := range reviews {
		if need[r.CardKey] != nil {
			byCard[r.CardKey] = append(byCard[r.CardKey], r)
		}
	}
	for key, rs := range byCard {
		slices.SortStableFunc(rs, func(a, b ports.AnkiReview) int { return cmp.Compare(a.Key, b.Key) })
		im.replay(ctx, need[key], rs)
	}
}

// replay computes a card's FSRS memory state from its reviews under its
// deck's settings, in the learner's day (fsrs.Replay: a Forget entry, a
// manual entry that made the card new, starts the history over), keeping
// the package's due date and phase. Cram entries and manual entries that
// set a due date are not ratings and are passed over.
func (im *importer) replay(ctx context.Context, c *cardWork, rs []ports.AnkiReview) {
	history := make([]fsrs.Entry, 0, len(rs))
	for _, r := range rs {
		at := time.UnixMilli(r.Key).UTC()
		switch {
		case r.Kind == ports.ReviewKindManual && r.State.Phase == contracts.PhaseNew:
			history = append(history, fsrs.Entry{At: at, Reset: true})
		case (r.Kind == "" || r.Kind == ports.ReviewKindReview) && slices.Contains(contracts.Ratings, r.Rating):
			history = append(history, fsrs.Entry{At: at, Rating: r.Rating})
		}
	}
	st, n, err := fsrs.Replay(im.s.Sched, im.settingsOf(ctx, c.deckID), im.day, history)
	if err != nil || n == 0 {
		return
	}
	c.state.Stability, c.state.Difficulty = st.Stability, st.Difficulty
	if c.state.LastReview == nil {
		c.state.LastReview = st.LastReview
	}
}

// settingsOf returns a deck's settings: a new deck's from the package, an
// existing one's from the store (defaults when it cannot be read).
func (im *importer) settingsOf(ctx context.Context, deckID string) contracts.DeckSettings {
	if s, ok := im.settings[deckID]; ok {
		return s
	}
	s := contracts.DefaultDeckSettings()
	if i := slices.IndexFunc(im.newDecks, func(d contracts.Deck) bool { return d.ID == deckID }); i >= 0 {
		s = im.newDecks[i].Settings.WithDefaults()
	} else if d, err := im.s.Store.Decks().DeckWithoutCounts(ctx, im.uid, deckID); err == nil {
		s = d.Settings.WithDefaults()
	}
	im.settings[deckID] = s
	return s
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

// write stages the package's notes, cards and review logs a chunk of
// notes at a time, in short transactions, where no read sees them, then
// publishes them (and the staged media) with the new decks and the
// updates of notes the account had in one transaction. Publishing copies
// the notes and cards; the review logs, most of a package's rows, become
// live where they are staged and move into the review log a batch a
// transaction as the stage is dropped, so the publish holds SQLite's
// writer for the notes' time, not the history's.
func (im *importer) write(ctx context.Context, src ports.PackageSource) error {
	var err error
	if im.day, err = kernel.LearnerDay(ctx, im.s.Store, im.uid); err != nil {
		return err
	}
	im.progress(0, "staging notes and cards")
	if err := src.Chunks(ctx, importChunk, func(ch ports.AnkiChunk) error { return im.chunk(ctx, ch) }); err != nil {
		return err
	}
	for why, n := range im.converted {
		im.skip("noteType", why, "", n)
	}
	im.progress(0, "publishing")
	if im.dry { // what publishing checks and counts, on the live tables, writing nothing
		return im.publish(ctx, im.s.Store)
	}
	rep := im.rep
	err = im.s.Store.InTx(ctx, func(tx ports.Stores) error {
		im.rep = rep // a retried transaction starts over
		return im.publish(ctx, tx)
	})
	if err == nil {
		im.progress(0, "published")
	}
	return err
}

// chunk plans, replays and stages one chunk of the package; the updates
// of the notes the account had are staged too, for the publishing.
//
// The chunk's notes, cards and reviews are charged to the job's budget
// before any of them is planned (an item each, and the notes' text).
func (im *importer) chunk(ctx context.Context, ch ports.AnkiChunk) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := im.charge(int64(len(ch.Notes)+len(ch.Cards)+len(ch.Reviews)), chunkBytes(ch)); err != nil {
		return err
	}
	works, err := im.planNotes(ctx, ch)
	if err != nil {
		return err
	}
	im.replayChunk(ctx, works, ch.Reviews)
	if len(works) > 0 {
		im.progress(0, "staging notes and cards")
	}
	if err := im.stageNotes(ctx, works); err != nil {
		return err
	}
	if len(ch.Reviews) > 0 {
		im.progress(0, "staging the review log")
	}
	if err := im.stageReviews(ctx, works, ch.Reviews); err != nil {
		return err
	}
	return im.stageUpdates(ctx, works)
}

// chunkBytes is the text of a chunk's notes: fields, tags and GUIDs.
func chunkBytes(ch ports.AnkiChunk) int64 {
	var n int
	for _, an := range ch.Notes {
		n += len(an.GUID)
		for _, f := range an.Fields {
			n += len(f)
		}
		for _, t := range an.Tags {
			n += len(t)
		}
	}
	return int64(n)
}

// publish creates the new decks, copies the stage into the live tables
// and updates the notes the account had, in tx. A dry run checks the
// holdings as publishing does and counts what it staged instead.
func (im *importer) publish(ctx context.Context, tx ports.Stores) error {
	held, err := im.s.CheckHoldings(ctx, tx, im.uid, 0, im.stagedCards)
	if err != nil {
		return err
	}
	if err := im.s.CheckDecks(held, len(im.newDecks)); err != nil {
		return err
	}
	for _, d := range im.newDecks {
		if im.dry {
			im.rep.Presets++
			im.rep.DecksCreated = append(im.rep.DecksCreated, d.Name)
			continue
		}
		if err := library.NewPreset(ctx, tx, im.s.Deps, im.uid, d.Name, &d.Settings); err != nil {
			return err
		}
		if err := tx.Decks().CreateDeck(ctx, im.uid, d); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return contracts.Errorf(contracts.KindConflict, "deck %q was created while the import ran; start the import again", d.Name)
			}
			return kernel.Fail(err)
		}
		im.rep.Presets++
		im.rep.DecksCreated = append(im.rep.DecksCreated, d.Name)
	}
	if im.dry {
		im.rep.NotesCreated, im.rep.CardsCreated, im.rep.Reviews = im.stagedNotes, im.stagedCards, im.stagedReviews
		return nil
	}
	if err := im.publishTypes(ctx, tx); err != nil {
		return err
	}
	pub, err := tx.ImportStages().PublishStage(ctx, im.uid, im.stage.ID, im.s.Now())
	if err != nil {
		return importConflict(err)
	}
	if pub.CardsSkipped > 0 {
		im.skip("card", "its deck already has a card with the same front and back", "", pub.CardsSkipped)
	}
	if lost := im.stagedReviews - pub.Reviews; lost > 0 {
		im.skip("review", "its card was not imported", "", lost)
	}
	im.rep.NotesCreated, im.rep.CardsCreated, im.rep.Reviews = pub.Notes, pub.Cards, pub.Reviews
	var ch kernel.Changes
	if err := im.updateOld(ctx, tx, &ch); err != nil {
		return err
	}
	return ch.Write(ctx, tx, im.s.Deps)
}

// touch marks the stage alive now and then, so the purge leaves it (a
// dry run has none).
func (im *importer) touch(ctx context.Context) error {
	if im.dry {
		return nil
	}
	if now := im.s.Now(); now.Sub(im.touched) >= stageTouchEvery {
		im.touched = now
		return kernel.Fail(im.s.Store.ImportStages().TouchStage(ctx, im.stage.ID, now))
	}
	return nil
}

// stageNotes stages a chunk's new notes and cards, at most importChunk
// rows a transaction, leaving out (and marking dropped) new cards whose
// deck has their front and back already, here or earlier in the package.
func (im *importer) stageNotes(ctx context.Context, works []*noteWork) error {
	taken, err := im.takenHashes(ctx, works)
	if err != nil {
		return err
	}
	st := im.s.Store.ImportStages()
	var noteRows []ports.NoteRow
	var cardRows []ports.CardRow
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(noteRows) == 0 && len(cardRows) == 0 {
			return nil
		}
		if !im.dry {
			if err := st.StageNotes(ctx, im.uid, im.stage.ID, noteRows); err != nil {
				return kernel.Fail(err)
			}
			if err := st.StageCards(ctx, im.uid, im.stage.ID, cardRows); err != nil {
				return kernel.Fail(err)
			}
		}
		im.progress(int64(len(noteRows)), "staging notes and cards")
		im.stagedNotes += len(noteRows)
		im.stagedCards += len(cardRows)
		noteRows, cardRows = noteRows[:0], cardRows[:0]
		return im.touch(ctx)
	}
	for _, n := range works {
		kept := 0
		for _, c := range n.cards {
			if c.existing != nil {
				continue
			}
			key := digestOf(c.deckID, c.made.Hash)
			_, dup := im.taken[key]
			if dup || taken[key] {
				im.skip("card", "its deck already has a card with the same front and back", c.made.Card.Front, 1)
				c.dropped = true
				continue
			}
			im.taken[key] = struct{}{}
			kept++
			cardRows = append(cardRows, ports.CardRow{Hash: c.made.Hash, Version: 1, Card: contracts.Card{
				ID: c.id, DeckID: c.deckID, NoteID: n.row.ID, Ord: c.made.Ord, Front: c.made.Card.Front, Back: c.made.Card.Back,
				Tags: c.made.Card.Tags, Suspended: c.suspended, State: c.state, CreatedAt: c.created, UpdatedAt: im.now}})
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
				return err
			}
		}
	}
	return flush()
}

// takenHashes returns the digests (deck id, hash) of a chunk's new cards
// whose decks have their hash already, one set-based read a deck.
func (im *importer) takenHashes(ctx context.Context, works []*noteWork) (map[[16]byte]bool, error) {
	hashes := map[string][]string{}
	for _, n := range works {
		for _, c := range n.cards {
			if c.existing == nil {
				hashes[c.deckID] = append(hashes[c.deckID], c.made.Hash)
			}
		}
	}
	taken := map[[16]byte]bool{}
	for d, hs := range hashes {
		for i := 0; i < len(hs); i += importChunk {
			m, err := im.s.Store.Cards().HashesInDeck(ctx, im.uid, d, hs[i:min(i+importChunk, len(hs))])
			if err != nil {
				return nil, kernel.Fail(err)
			}
			for h := range m {
				taken[digestOf(d, h)] = true
			}
		}
	}
	return taken, nil
}

// stageReviews turns a chunk's review log into review-log rows of the
// imported cards (leaving out those the account has already: an earlier
// import added them) and stages them, at most importChunk a transaction.
func (im *importer) stageReviews(ctx context.Context, works []*noteWork, reviews []ports.AnkiReview) error {
	if len(reviews) == 0 {
		return nil
	}
	byKey := map[int64]*cardWork{}
	var old []string
	for _, n := range works {
		for _, c := range n.cards {
			byKey[c.key] = c
			if c.existing != nil {
				old = append(old, c.id)
			}
		}
	}
	have, err := im.reviewsHad(ctx, old)
	if err != nil {
		return err
	}
	st := im.s.Store.ImportStages()
	rows := make([]ports.ReviewLog, 0, min(importChunk, len(reviews)))
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if !im.dry {
			if err := st.StageReviews(ctx, im.uid, im.stage.ID, rows); err != nil {
				return kernel.Fail(err)
			}
		}
		im.progress(int64(len(rows)/100), "staging the review log")
		im.stagedReviews += len(rows)
		rows = rows[:0]
		return im.touch(ctx)
	}
	for _, r := range reviews {
		c, ok := byKey[r.CardKey]
		if !ok || c.dropped {
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
		rows = append(rows, ports.ReviewLog{ID: im.s.IDs.NewID(), UserID: im.uid, CardID: c.id, DeckID: c.deckID,
			Rating: r.Rating, PrevPhase: r.PrevPhase, State: r.State, ReviewedAt: at, DurationMs: r.DurationMs, Kind: kind,
			Day: kernel.DayNumber(im.day, at), PrevInterval: r.PrevInterval})
		if len(rows) >= importChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// reviewKey is a review of a card here at a time (Unix ms).
type reviewKey struct {
	cardID string
	at     int64
}

// reviewsHad returns the reviews the account has of the cards with
// these ids (a chunk's cards the import updates).
func (im *importer) reviewsHad(ctx context.Context, cardIDs []string) (map[reviewKey]bool, error) {
	have := map[reviewKey]bool{}
	if len(cardIDs) == 0 {
		return have, nil
	}
	rows, err := im.s.Store.Reviews().ReviewsOfCards(ctx, im.uid, cardIDs)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	for _, r := range rows {
		have[reviewKey{r.CardID, r.ReviewedAt.UnixMilli()}] = true
	}
	return have, nil
}

// PurgeStages drops, for the purge scheduler, the stages of imports that
// published (their notes and cards are copies now, their review logs
// move into the review log) or died (untouched for
// importStageStale): up to limit staged rows in all, a batch a
// transaction. It returns how many stages it dropped whole.
func (s *ImportService) PurgeStages(ctx context.Context, limit int) (int, error) {
	ids, err := s.Store.ImportStages().StagesToDrop(ctx, "", s.Now().Add(-importStageStale), 16)
	if err != nil {
		return 0, kernel.Fail(err)
	}
	n := 0
	for _, id := range ids {
		if err := s.dropStagedMedia(ctx, id); err != nil {
			return n, err
		}
		for limit > 0 {
			batch := min(limit, importChunk*2)
			gone, err := s.Store.ImportStages().DropStage(ctx, id, batch)
			if err != nil {
				return n, kernel.Fail(err)
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
// of an import that published, failed or was canceled), staged media
// first: a stage whose media could not all be dropped stays for the purge.
func (s *ImportService) dropStages(ctx context.Context, ids []string) {
	for _, id := range ids {
		if s.dropStagedMedia(ctx, id) != nil {
			continue
		}
		for {
			gone, err := s.Store.ImportStages().DropStage(ctx, id, importChunk*2)
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
	return kernel.Fail(err)
}

// pendingUpdate is the update of one note the account had and of its
// cards, staged (JSON in import_updates) until the import publishes, so a
// re-import holds no note across chunks: the note's new fields and tags
// when they changed, and its cards whose text, place, suspension or
// scheduling state changed. What the package leaves as it is is not
// staged at all (it is counted as updated in the report).
type pendingUpdate struct {
	Note  *pendingNote  `json:"n,omitempty"`
	Cards []pendingCard `json:"c,omitempty"`
}

// pendingNote is a note's update, made on the version read when staging.
type pendingNote struct {
	ID       string   `json:"id"`
	Version  int64    `json:"v"`
	NoteType string   `json:"type"`
	Fields   []string `json:"fields"`
	Tags     []string `json:"tags"`
	// Prev is the note's note.update record's Prev (none for a note
	// moved to another note type).
	Prev  map[string]any `json:"p,omitempty"`
	after map[string]any // the new values of Prev's fields: a dry run's preview
}

// pendingCard is a card's update, made on the version read when staging:
// its new content and its new scheduling state, each when it changed.
type pendingCard struct {
	ID      string               `json:"id"`
	Version int64                `json:"v"`
	Content *pendingContent      `json:"content,omitempty"`
	State   *contracts.CardState `json:"state,omitempty"`
	// Moved is the card's deck and suspension as they were, when the
	// package changes them (a card.update record's Prev; its text is the
	// note's, put back with the note); Was its scheduling state as it
	// was, when the package changes it (a card.schedule record's).
	Moved map[string]any       `json:"moved,omitempty"`
	Was   *contracts.CardState `json:"was,omitempty"`
}

// pendingContent is what a card shows, where it is and whether it is
// suspended.
type pendingContent struct {
	DeckID    string   `json:"deck"`
	Front     string   `json:"front"`
	Back      string   `json:"back"`
	Tags      []string `json:"tags"`
	Suspended bool     `json:"suspended,omitempty"`
	Hash      string   `json:"hash"`
}

// stageUpdates stages the updates of a chunk's notes the account had
// (fields, tags, deck, suspension and the scheduling state the package
// carries), at most importChunk a transaction, and counts them in the
// report. A dry run stages none: it previews them (dryUpdates).
func (im *importer) stageUpdates(ctx context.Context, works []*noteWork) error {
	var bodies []string
	var dry []pendingUpdate
	flush := func() error {
		if im.dry {
			err := im.dryUpdates(ctx, dry)
			dry = dry[:0]
			return err
		}
		if len(bodies) == 0 {
			return nil
		}
		if err := im.s.Store.ImportStages().StageUpdates(ctx, im.stage.ID, bodies); err != nil {
			return kernel.Fail(err)
		}
		bodies = bodies[:0]
		return im.touch(ctx)
	}
	for _, n := range works {
		if !n.existing {
			continue
		}
		im.rep.NotesUpdated++
		var u pendingUpdate
		if !n.same {
			u.Note = &pendingNote{ID: n.row.ID, Version: n.row.Version, NoteType: n.row.NoteType, Fields: n.row.Fields, Tags: n.row.Tags, Prev: n.prev}
		}
		for _, c := range n.cards {
			if c.existing == nil {
				continue
			}
			im.rep.CardsUpdated++
			old := *c.existing
			row := old
			row.DeckID, row.Front, row.Back, row.Tags, row.Suspended, row.Hash = c.deckID, c.made.Card.Front, c.made.Card.Back, c.made.Card.Tags, c.suspended, c.made.Hash
			pc := pendingCard{ID: old.ID, Version: old.Version}
			if !sameContent(row, old) {
				pc.Content = &pendingContent{DeckID: row.DeckID, Front: row.Front, Back: row.Back, Tags: row.Tags, Suspended: row.Suspended, Hash: row.Hash}
				pc.Moved = map[string]any{}
				if row.DeckID != old.DeckID {
					pc.Moved["deckId"] = old.DeckID
				}
				if row.Suspended != old.Suspended {
					pc.Moved["suspended"] = old.Suspended
				}
			}
			if !sameState(old.State, c.state) {
				st, was := c.state, old.State
				pc.State, pc.Was = &st, &was
			}
			if pc.Content != nil || pc.State != nil {
				u.Cards = append(u.Cards, pc)
			}
		}
		if u.Note == nil && len(u.Cards) == 0 {
			im.rep.NotesUnchanged++
			continue
		}
		if im.dry {
			if u.Note != nil {
				u.Note.after = n.after
			}
			if dry = append(dry, u); len(dry) >= importChunk {
				if err := flush(); err != nil {
					return err
				}
			}
			continue
		}
		body, err := json.Marshal(u)
		if err != nil {
			return kernel.Fail(err)
		}
		if bodies = append(bodies, string(body)); len(bodies) >= importChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// dryUpdates is what publishing the updates of notes the account had
// would do, for a dry run: the same outcome (a card whose new text
// duplicates another card of its deck keeps its text and is counted as
// skipped), its changes added to the preview instead of written.
func (im *importer) dryUpdates(ctx context.Context, us []pendingUpdate) error {
	hashes := map[string][]string{} // deck → new hashes of cards whose text changes
	for _, u := range us {
		for _, c := range u.Cards {
			if c.Content != nil {
				hashes[c.Content.DeckID] = append(hashes[c.Content.DeckID], c.Content.Hash)
			}
		}
	}
	held := map[string]map[string]string{} // deck → hash → the card that has it
	for d, hs := range hashes {
		m, err := im.s.Store.Cards().HashesInDeck(ctx, im.uid, d, hs)
		if err != nil {
			return kernel.Fail(err)
		}
		held[d] = m
	}
	for _, u := range us {
		if n := u.Note; n != nil && len(n.Prev) > 0 {
			im.preview.Add(contracts.ChangeNoteUpdate, n.ID, n.Version+1, n.Prev, n.after)
		}
		for _, c := range u.Cards {
			version := c.Version
			if t := c.Content; t != nil {
				if other, ok := held[t.DeckID][t.Hash]; ok && other != c.ID {
					im.skip("card", "its new front and back duplicate another card of its deck; the card kept its text", t.Front, 1)
				} else {
					version++
					if len(c.Moved) > 0 {
						after := map[string]any{}
						for k := range c.Moved {
							after[k] = map[string]any{"deckId": t.DeckID, "suspended": t.Suspended}[k]
						}
						im.preview.Add(contracts.ChangeCardUpdate, c.ID, version, c.Moved, after)
					}
				}
			}
			if c.State != nil && c.Was != nil {
				im.preview.Add(contracts.ChangeCardSchedule, c.ID, version+1, map[string]any{"state": c.Was}, map[string]any{"state": c.State})
			}
		}
	}
	return nil
}

// updatePage is how many staged updates the publishing reads at a time.
const updatePage = 500

// updateOld applies the staged updates of the notes the account had and
// their cards, in tx, a page at a time. A card whose new text duplicates
// another card of its deck keeps its text (and is counted as skipped).
func (im *importer) updateOld(ctx context.Context, tx ports.Stores, ch *kernel.Changes) error {
	for after := int64(0); ; {
		page, err := tx.ImportStages().StagedUpdates(ctx, im.stage.ID, after, updatePage)
		if err != nil {
			return kernel.Fail(err)
		}
		for _, p := range page {
			after = p.Seq
			var u pendingUpdate
			if err := json.Unmarshal([]byte(p.Body), &u); err != nil {
				return kernel.Fail(err)
			}
			if err := im.applyUpdate(ctx, tx, u, ch); err != nil {
				return err
			}
		}
		if len(page) < updatePage {
			return nil
		}
	}
}

// applyUpdate writes one staged update in tx and adds its change records
// to ch: the note's previous fields and tags (undo_changes puts them back
// and so re-makes the cards' text), each card's previous deck and
// suspension and its previous scheduling state.
func (im *importer) applyUpdate(ctx context.Context, tx ports.Stores, u pendingUpdate, ch *kernel.Changes) error {
	if n := u.Note; n != nil {
		row := ports.NoteRow{ID: n.ID, NoteType: n.NoteType, Fields: n.Fields, Tags: n.Tags, Version: n.Version, UpdatedAt: im.now}
		if err := tx.Notes().UpdateNote(ctx, im.uid, row); err != nil {
			return importConflict(err)
		}
		if len(n.Prev) > 0 {
			ch.Add(contracts.ChangeNoteUpdate, n.ID, n.Version+1, n.Prev, nil)
		}
	}
	for _, c := range u.Cards {
		version := c.Version
		if t := c.Content; t != nil {
			row := ports.CardRow{Hash: t.Hash, Version: version, Card: contracts.Card{ID: c.ID, DeckID: t.DeckID, Front: t.Front, Back: t.Back,
				Tags: t.Tags, Suspended: t.Suspended, UpdatedAt: im.now}}
			if err := tx.Cards().UpdateCard(ctx, im.uid, row); err != nil {
				if !contracts.IsKind(err, contracts.KindConflict) {
					return kernel.Fail(err)
				}
				im.skip("card", "its new front and back duplicate another card of its deck; the card kept its text", t.Front, 1)
			} else {
				version++
				if len(c.Moved) > 0 {
					ch.Add(contracts.ChangeCardUpdate, c.ID, version, c.Moved, nil)
				}
			}
		}
		if c.State != nil {
			if err := tx.Cards().UpdateState(ctx, im.uid, c.ID, version, *c.State, im.now); err != nil {
				return importConflict(err)
			}
			if c.Was != nil {
				ch.Add(contracts.ChangeCardSchedule, c.ID, version+1, map[string]any{"state": c.Was}, nil)
			}
		}
	}
	return nil
}

// sameContent reports whether a card update would leave what a card
// shows, where it is and whether it is suspended as they are.
func sameContent(a, b ports.CardRow) bool {
	return a.DeckID == b.DeckID && a.Front == b.Front && a.Back == b.Back && slices.Equal(a.Tags, b.Tags) &&
		a.Suspended == b.Suspended && a.Hash == b.Hash
}

// sameState reports whether two scheduling states are the same (times
// compared as instants).
func sameState(a, b contracts.CardState) bool {
	if (a.LastReview == nil) != (b.LastReview == nil) || (a.LastReview != nil && !a.LastReview.Equal(*b.LastReview)) || !a.Due.Equal(b.Due) {
		return false
	}
	a.LastReview, b.LastReview, a.Due, b.Due = nil, nil, time.Time{}, time.Time{}
	return a == b
}

// dropStagedMedia deletes the media rows still staged in a stage (those
// of an import that failed, was canceled or died), a batch a transaction
// under their account's media lock, and each one's blob when no other row
// of the account has the same bytes. Their bytes stop counting against
// the quota.
func (s *ImportService) dropStagedMedia(ctx context.Context, stageID string) error {
	for {
		rows, err := s.Store.Media().StagedMedia(ctx, "", stageID, "", 100)
		if err != nil {
			return kernel.Fail(err)
		}
		if len(rows) == 0 {
			return nil
		}
		err = s.Store.InTx(ctx, func(tx ports.Stores) error {
			md := tx.Media()
			if err := md.LockMedia(ctx, rows[0].UserID); err != nil { // a stage is one user's
				return kernel.Fail(err)
			}
			for _, r := range rows {
				if err := md.DeleteMedia(ctx, r.UserID, r.ID); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
					return kernel.Fail(err)
				}
			}
			if s.Blobs == nil {
				return nil
			}
			done := map[string]bool{}
			for _, r := range rows {
				key := library.MediaBlobKey(r)
				if done[key] {
					continue
				}
				done[key] = true
				if r.SHA256 != "" {
					used, err := md.BlobInUse(ctx, r.UserID, r.SHA256)
					if err != nil {
						return kernel.Fail(err)
					}
					if used {
						continue
					}
				}
				if err := s.Blobs.DeleteBlob(ctx, key); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
					return kernel.Fail(err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}
