package study

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// markLeech tags a card that has just become a leech (issue 27), as
// Anki: its note gets contracts.LeechTag, and so does every card of the
// note (cards carry their note's tags); a card without a note is tagged
// alone. With suspend, the card itself is suspended too. It runs in the
// review's transaction, after the card's new schedule was stored.
//
// It adds to ch what it changed, as the edits that do the same record it
// (issue 26 §2.2: undo_changes takes a leech marking back with its
// review): a note.update of the note's previous tags (undoing it puts
// back the tags of the note and of its cards) and a card.update of the
// card's previous suspension (and, for a card without a note, tags).
// Each record is one version step of its item, as an edit's is: a card
// of a note takes the leech tag in the note's step, then is suspended in
// a step of its own, so an undo's version chain (the note's step, then
// the card's) matches the card's versions.
func markLeech(ctx context.Context, tx ports.Stores, uid, cardID, noteID string, suspend bool, now time.Time, ch *kernel.Changes) error {
	var cards []ports.CardRow
	var err error
	if noteID != "" {
		notes, err := tx.Notes().GetNotes(ctx, uid, []string{noteID})
		if err != nil {
			return kernel.Fail(err)
		}
		if len(notes) == 1 && !slices.Contains(notes[0].Tags, contracts.LeechTag) {
			n := notes[0]
			prev := append([]string{}, n.Tags...)
			n.Tags, n.UpdatedAt = append(slices.Clone(n.Tags), contracts.LeechTag), now
			if err := tx.Notes().UpdateNote(ctx, uid, n); err != nil {
				return kernel.Fail(err)
			}
			ch.Add(contracts.ChangeNoteUpdate, n.ID, n.Version+1, map[string]any{"tags": prev}, map[string]any{"tags": n.Tags})
		}
		cards, err = tx.Notes().CardsOfNotes(ctx, uid, []string{noteID})
	} else {
		cards, err = tx.Cards().GetCards(ctx, uid, []string{cardID})
	}
	if err != nil {
		return kernel.Fail(err)
	}
	update := func(c *ports.CardRow) error {
		c.UpdatedAt = now
		if err := tx.Cards().UpdateCard(ctx, uid, *c); err != nil {
			return kernel.Fail(err)
		}
		c.Version++
		return nil
	}
	for _, c := range cards {
		prev, after := map[string]any{}, map[string]any{}
		if !slices.Contains(c.Tags, contracts.LeechTag) {
			tagged := append(slices.Clone(c.Tags), contracts.LeechTag)
			if noteID == "" {
				prev["tags"], after["tags"] = append([]string{}, c.Tags...), tagged
			}
			c.Tags = tagged
			if noteID != "" { // the note's step: its record puts it back
				if err := update(&c); err != nil {
					return err
				}
			}
		}
		if suspend && c.ID == cardID && !c.Suspended {
			prev["suspended"], after["suspended"] = false, true
			c.Suspended = true
		}
		if len(prev) == 0 {
			continue
		}
		if err := update(&c); err != nil {
			return err
		}
		ch.Add(contracts.ChangeCardUpdate, c.ID, c.Version, prev, after)
	}
	return nil
}

// unmarkLeech takes back, for the study page's undo of a rating, the
// leech marking the rating made: the records markLeech wrote under the
// rating's operation, newest first, each while its item is still at the
// record's version, through the library's ApplyPatch and ApplyNotePatch
// as undo_changes applies them. A record whose item changed since is
// left, and so is that part of the marking. Those applied are marked
// undone, and the undo writes no record of its own: the rating's log
// goes, so nothing could apply the marking again with its rating. card
// is the rated card, read in tx; its version follows the steps taken.
func (s *StudyService) unmarkLeech(ctx context.Context, tx ports.Stores, uid string, log ports.ReviewLog, card *ports.CardRow) error {
	if log.OperationID == "" || log.Kind != ports.ReviewKindReview || log.PrevState == nil || log.State.Lapses <= log.PrevState.Lapses {
		return nil // no lapse: no leech marking
	}
	f := contracts.ChangeFilter{OperationIDs: []string{log.OperationID}, Pending: true}
	recs, err := tx.Changes().ListChanges(ctx, uid, f, "", contracts.MaxUndoItems)
	if err != nil {
		return kernel.Fail(err)
	}
	var done []string
	var unrecorded kernel.Changes
	for _, r := range recs {
		var out contracts.ItemOutcome
		switch {
		case r.Kind == contracts.ChangeCardUpdate && r.ItemID == card.ID && r.Version == card.Version:
			var patch contracts.CardPatch
			if err := json.Unmarshal(r.Prev, &patch); err != nil {
				return kernel.Fail(err)
			}
			patch.ID = card.ID
			if out, err = (&library.CardService{Deps: s.Deps}).ApplyPatch(ctx, tx, uid, patch, &unrecorded); err != nil {
				return err
			}
			if out.Status == contracts.OutcomeUpdated {
				card.Version++
			}
		case r.Kind == contracts.ChangeNoteUpdate && r.ItemID == card.NoteID:
			notes, err := tx.Notes().GetNotes(ctx, uid, []string{r.ItemID})
			if err != nil {
				return kernel.Fail(err)
			}
			if len(notes) == 0 || notes[0].Version != r.Version {
				continue
			}
			var patch contracts.NotePatch
			if err := json.Unmarshal(r.Prev, &patch); err != nil {
				return kernel.Fail(err)
			}
			patch.ID = r.ItemID
			var rewritten map[string]int64
			if out, rewritten, err = (&library.NoteService{Deps: s.Deps}).ApplyNotePatch(ctx, tx, uid, patch, &unrecorded); err != nil {
				return err
			}
			if v, ok := rewritten[card.ID]; ok && out.Status == contracts.OutcomeUpdated {
				card.Version = v + 1
			}
		}
		if out.Status == contracts.OutcomeUpdated {
			done = append(done, r.ID)
		}
	}
	if len(done) == 0 {
		return nil
	}
	op, ok := contracts.OperationIDFrom(ctx)
	if !ok {
		op = s.IDs.NewID()
	}
	switch n, err := tx.Changes().MarkUndone(ctx, uid, done, op); {
	case err != nil:
		return kernel.Fail(err)
	case n != len(done):
		return contracts.Errorf(contracts.KindConflict, "an undo of this rating's changes ran at the same time; try the undo again")
	}
	return nil
}
