package undo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// undoChunk is how many change records one transaction of an undo
// applies: short transactions, so an undo of a thousand edits never holds
// the account's other writers for long.
const undoChunk = 100

// UndoService undoes earlier changes from their change records.
type UndoService struct {
	*kernel.Deps
	Cards *library.CardService
	Decks *library.DeckService
	Notes *library.NoteService
	Trash *library.TrashService
	// Settings puts account settings back (the identity room's service,
	// passed in by the composition: undo does not import identity).
	Settings SettingsApplier
}

// SettingsApplier applies update_settings arguments in a transaction,
// recording the change in ch; errors as update_settings'.
type SettingsApplier interface {
	UpdateSettingsIn(ctx context.Context, tx ports.Stores, uid string, args contracts.UpdateSettingsArgs, ch *kernel.Changes) (contracts.AccountSettings, error)
}

var _ ports.UndoService = (*UndoService)(nil)

// OperationStates implements ports.UndoService.
func (s *UndoService) OperationStates(ctx context.Context, ids []string) (map[string]ports.OperationState, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	states, err := s.Store.Changes().OperationStates(ctx, uid, ids, s.reviewCutoff())
	return states, kernel.Fail(err)
}

// reviewCutoff is the start of the window in which reviews can be taken
// back: as long as change records are kept (contracts.ChangeTTL); the
// review logs keep their operation ids for good.
func (s *UndoService) reviewCutoff() time.Time {
	return s.Now().Add(-contracts.ChangeTTL)
}

// UndoChanges implements ports.UndoService: the pending records picked by
// args, newest first, undoChunk to a transaction; each item undone or
// skipped with a reason, the undo's own records written beside.
func (s *UndoService) UndoChanges(ctx context.Context, args contracts.UndoChangesArgs) (contracts.UndoChangesResult, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.UndoChangesResult{}, err
	}
	f, err := s.filter(ctx, p, args)
	if err != nil {
		return contracts.UndoChangesResult{}, err
	}
	before, err := kernel.DecodeCursor(args.Cursor)
	if err != nil {
		return contracts.UndoChangesResult{}, err
	}
	recs, err := s.Store.Changes().ListChanges(ctx, p.UserID, f, before, contracts.MaxUndoItems+1)
	if err != nil {
		return contracts.UndoChangesResult{}, kernel.Fail(err)
	}
	// Reviews can be taken back for as long as change records are kept.
	rf := f
	if cutoff := s.reviewCutoff(); rf.Since.Before(cutoff) {
		rf.Since = cutoff
	}
	revs, err := s.Store.Reviews().OperationReviews(ctx, p.UserID, rf, before, contracts.MaxUndoItems+1)
	if err != nil {
		return contracts.UndoChangesResult{}, kernel.Fail(err)
	}
	res := contracts.UndoChangesResult{Items: []contracts.UndoItem{}, DryRun: args.DryRun}
	all := merge(recs, revs)
	if len(all) > contracts.MaxUndoItems {
		all = all[:contracts.MaxUndoItems]
		res.NextCursor = kernel.EncodeCursor(all[len(all)-1].id)
	}
	op, ok := contracts.OperationIDFrom(ctx)
	if !ok {
		op = s.IDs.NewID()
		ctx = contracts.WithOperationID(ctx, op)
	}
	if !args.DryRun {
		res.OperationID = op
	}
	reweighted, err := s.undoAll(ctx, p, all, op, args.DryRun, &res)
	if err != nil {
		return contracts.UndoChangesResult{}, err
	}
	for _, it := range res.Items {
		if it.Status == contracts.UndoUndone {
			res.Undone++
		} else {
			res.Skipped++
		}
	}
	if res.Undone == 0 {
		res.OperationID = "" // nothing to redo
	}
	if !args.DryRun {
		// Weights put back reach the preset's cards, as new weights do.
		for _, presetID := range reweighted {
			if _, err := s.Jobs.Submit(ctx, contracts.JobKindRecomputeMemory, library.RecomputeInput{PresetID: presetID}); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// undoAll undoes the entries, undoChunk to a transaction, and adds their
// items to res; it returns the presets whose weights it put back. A dry
// run goes through all the chunks in one transaction rolled back at the
// end (at most contracts.MaxUndoItems entries), so a later chunk sees what
// an earlier one undid, as in the real call.
func (s *UndoService) undoAll(ctx context.Context, p contracts.Principal, all []entry, op string, dry bool, res *contracts.UndoChangesResult) ([]string, error) {
	if !dry {
		return s.undoChunks(ctx, p, all, op, res, func(fn func(tx ports.Stores) error) error { return s.Store.InTx(ctx, fn) })
	}
	return nil, kernel.InTxOrDry(ctx, s.Store, true, func(tx ports.Stores) error {
		res.Items = res.Items[:0]
		_, err := s.undoChunks(ctx, p, all, op, res, func(fn func(tx ports.Stores) error) error { return fn(tx) })
		return err
	})
}

// undoChunks undoes the entries newest first, undoChunk to a call of
// inTx, and adds their items to res; it returns the presets whose weights
// it put back.
func (s *UndoService) undoChunks(ctx context.Context, p contracts.Principal, all []entry, op string, res *contracts.UndoChangesResult,
	inTx func(fn func(tx ports.Stores) error) error) ([]string, error) {
	chain := map[string]versionAlias{}
	var reweighted []string
	for start := 0; start < len(all); start += undoChunk {
		chunk := all[start:min(start+undoChunk, len(all))]
		var items []contracts.UndoItem
		err := inTx(func(tx ports.Stores) error {
			items = items[:0]
			var ch kernel.Changes
			var done []string
			for _, e := range chunk {
				if e.rev != nil { // a review, taken back from its log
					if _, again := chain[reviewKey(e.rev.ID)]; again {
						continue // a record of this call took it back already
					}
					reason, err := s.undoReview(ctx, tx, p, *e.rev, 0, chain, &ch)
					if err != nil {
						return err
					}
					items = append(items, outcome(contracts.ChangeReview, e.rev.CardID, reason))
					continue
				}
				r := *e.rec
				reason, err := s.undoOne(ctx, tx, p, r, chain, &ch)
				if reason == "" && err == nil {
					if id := s.reweighted(ctx, tx, p.UserID, r); id != "" && !slices.Contains(reweighted, id) {
						reweighted = append(reweighted, id)
					}
				}
				if err != nil {
					return err
				}
				if reason == "" {
					done = append(done, r.ID)
				}
				items = append(items, outcome(r.Kind, r.ItemID, reason))
			}
			n, err := tx.Changes().MarkUndone(ctx, p.UserID, done, op)
			if err != nil {
				return kernel.Fail(err)
			}
			if n != len(done) {
				return contracts.Errorf(contracts.KindConflict, "another undo of these changes ran at the same time; call undo_changes again to see what is left")
			}
			return ch.Write(ctx, tx, s.Deps)
		})
		if err != nil {
			return nil, err
		}
		res.Items = append(res.Items, items...)
	}
	return reweighted, nil
}

// outcome is an item's line in the result: undone, or skipped for reason.
func outcome(kind contracts.ChangeKind, id, reason string) contracts.UndoItem {
	if reason != "" {
		return contracts.UndoItem{Kind: kind, ID: id, Status: contracts.UndoSkipped, Reason: reason}
	}
	return contracts.UndoItem{Kind: kind, ID: id, Status: contracts.UndoUndone}
}

// reweighted names the preset whose weights undoing r put back: a
// deck.update's that set weights, or a preset.update's (an optimiser
// run's); "" for any other record.
func (s *UndoService) reweighted(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord) string {
	switch {
	case r.Kind == contracts.ChangePresetUpdate:
		return r.ItemID
	case r.Kind == contracts.ChangeDeckUpdate && library.SetsWeights(r.Prev):
		if d, err := tx.Decks().DeckWithoutCounts(ctx, uid, r.ItemID); err == nil {
			return d.Settings.PresetID
		}
	}
	return ""
}

// filter turns the arguments into the records to undo.
func (s *UndoService) filter(ctx context.Context, p contracts.Principal, args contracts.UndoChangesArgs) (contracts.ChangeFilter, error) {
	f := contracts.ChangeFilter{Pending: true}
	switch {
	case len(args.OperationIDs) > 0:
		if args.Since != nil || args.Until != nil || args.CredentialID != "" {
			return f, contracts.Errorf(contracts.KindInvalid, "give operationIds, or since (with credentialId and until), not both")
		}
		f.OperationIDs = args.OperationIDs
		return f, nil
	case args.Since != nil:
		var day contracts.LearnerDay
		if args.Since.IsDate() || (args.Until != nil && args.Until.IsDate()) {
			var err error
			if day, err = kernel.LearnerDay(ctx, s.Store, p.UserID); err != nil {
				return f, err
			}
		}
		f.Since = args.Since.At(day)
		if args.Until != nil {
			f.Until = args.Until.At(day)
			if !f.Until.After(f.Since) {
				return f, contracts.Errorf(contracts.KindInvalid, "until must be after since")
			}
		}
		f.CredentialID = args.CredentialID
		f.ExceptUndos = true // what the agent did, not an earlier undo's work
		if f.CredentialID == "" {
			f.CredentialID = p.CredentialID
		}
		return f, nil
	default:
		return f, contracts.Errorf(contracts.KindInvalid, "give operationIds (from the audit trail) or since (a date or date-time): which changes to undo")
	}
}

// versionAlias says an item this undo already restored is at version now,
// which stands for version as: its state before the newer change undone.
// An older record of the same item then still matches.
type versionAlias struct{ now, as int64 }

// versionSeen is an item's version as this undo sees it: the version an
// item it already restored stood for, else cur (items whose versions count
// up: cards, notes, card schedules).
func versionSeen(chain map[string]versionAlias, id string, cur int64) int64 {
	if a, ok := chain[id]; ok && a.now == cur {
		return a.as
	}
	return cur
}

// changedSince reports whether an item whose version is its update time
// (decks, settings, presets) changed after the change recorded at
// recorded: not when this undo itself just put it back (then an older
// record of it still applies).
func changedSince(chain map[string]versionAlias, id string, cur, recorded int64) bool {
	a, ok := chain[id]
	return !(ok && a.now == cur) && cur != recorded
}

// undoOne applies the inverse of one record and adds the undo's own
// record to ch. It returns why the record was skipped ("" when undone);
// the error fails the chunk.
func (s *UndoService) undoOne(ctx context.Context, tx ports.Stores, p contracts.Principal, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	switch r.Kind {
	case contracts.ChangeCardUpdate:
		rows, cur, gone, err := s.cardNow(ctx, tx, p.UserID, r.ItemID, chain)
		if gone != "" || err != nil {
			return gone, err
		}
		if cur != r.Version {
			return fmt.Sprintf("card %s was changed after this change; read it (search_cards) and edit it yourself if needed", r.ItemID), nil
		}
		if len(r.Prev) == 0 { // the change set nothing new: nothing to put back
			chain[r.ItemID] = versionAlias{now: rows[0].Version, as: r.Version - 1}
			return "", nil
		}
		var patch contracts.CardPatch
		if err := json.Unmarshal(r.Prev, &patch); err != nil {
			return "", kernel.Fail(err)
		}
		patch.ID = r.ItemID
		if sendsHome(rows[0], patch) { // a filtered deck's gathering
			return s.undoGather(ctx, tx, p.UserID, rows[0], patch, r, chain, ch)
		}
		out, err := s.Cards.ApplyPatch(ctx, tx, p.UserID, patch, ch)
		if err != nil {
			return "", err
		}
		if out.Status != contracts.OutcomeUpdated {
			return out.Reason, nil
		}
		chain[r.ItemID] = versionAlias{now: rows[0].Version + 1, as: r.Version - 1}
		return "", nil
	case contracts.ChangeCardSchedule:
		return s.undoSchedule(ctx, tx, p, r, chain, ch)
	case contracts.ChangeCardDelete, contracts.ChangeDeckDelete:
		return s.restore(ctx, tx, p.UserID, r, ch)
	case contracts.ChangeCardAdd:
		_, cur, gone, err := s.cardNow(ctx, tx, p.UserID, r.ItemID, chain)
		if gone != "" || err != nil {
			return gone, err
		}
		if r.Version != 0 && cur != r.Version {
			return fmt.Sprintf("card %s was changed after it was added; delete it yourself (delete_cards) if it should go", r.ItemID), nil
		}
		ids, err := tx.Cards().TrashCards(ctx, p.UserID, []string{r.ItemID}, s.Now())
		if err != nil {
			return "", kernel.Fail(err)
		}
		if len(ids) == 0 {
			return fmt.Sprintf("card %s no longer exists", r.ItemID), nil
		}
		ch.Add(contracts.ChangeCardDelete, r.ItemID, 0, nil, nil)
		return "", nil
	case contracts.ChangeDeckAdd:
		if reason, err := s.deckAsAdded(ctx, tx, p.UserID, r, chain); reason != "" || err != nil {
			return reason, err
		}
		if _, err := tx.Decks().TrashDeck(ctx, p.UserID, r.ItemID, s.Now()); contracts.IsKind(err, contracts.KindNotFound) {
			return fmt.Sprintf("deck %s no longer exists", r.ItemID), nil
		} else if err != nil {
			return "", kernel.Fail(err)
		}
		ch.Add(contracts.ChangeDeckDelete, r.ItemID, 0, nil, nil)
		return "", nil
	case contracts.ChangePresetUpdate:
		return s.undoPreset(ctx, tx, p.UserID, r, chain, ch)
	case contracts.ChangeDeckUpdate:
		return s.undoDeckUpdate(ctx, tx, p.UserID, r, chain, ch)
	case contracts.ChangeSettingsUpdate:
		return s.undoSettings(ctx, tx, p.UserID, r, chain, ch)
	case contracts.ChangeNoteUpdate:
		return s.undoNote(ctx, tx, p.UserID, r, chain, ch)
	case contracts.ChangeReviewUndo:
		return s.redoReview(ctx, tx, p, r, chain, ch)
	case contracts.ChangeReview:
		return s.undoReviewRecord(ctx, tx, p, r, chain, ch)
	case contracts.ChangeCardBury:
		return s.undoBurial(ctx, tx, p, r, ch)
	case contracts.ChangeCardReturn:
		return s.undoReturn(ctx, tx, p.UserID, r, chain, ch)
	case contracts.ChangeFilteredUpdate:
		return s.undoFilteredUpdate(ctx, tx, p.UserID, r, chain, ch)
	default:
		return fmt.Sprintf("undoing a %s change is not supported yet", r.Kind), nil
	}
}

// cardNow reads a card a record names and its version as this undo sees
// it (an item it already restored stands at its earlier version); gone
// says why the card is not there.
func (s *UndoService) cardNow(ctx context.Context, tx ports.Stores, uid, cardID string, chain map[string]versionAlias) (rows []ports.CardRow, cur int64, gone string, err error) {
	rows, err = tx.Cards().GetCards(ctx, uid, []string{cardID})
	if err != nil {
		return nil, 0, "", kernel.Fail(err)
	}
	if len(rows) == 0 {
		gone, err = s.goneReason(ctx, tx, uid, cardID)
		return nil, 0, gone, err
	}
	return rows, versionSeen(chain, cardID, rows[0].Version), "", nil
}

// undoDeckUpdate puts back the deck settings an update_deck changed (the
// record's Prev is update_deck arguments), unless the deck changed since:
// a deck's version is its update time in milliseconds.
func (s *UndoService) undoDeckUpdate(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	d, err := tx.Decks().DeckWithoutCounts(ctx, uid, r.ItemID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return fmt.Sprintf("deck %s no longer exists or is in the trash: restore it (restore_items), then undo again", r.ItemID), nil
	} else if err != nil {
		return "", kernel.Fail(err)
	}
	cur := d.UpdatedAt.UnixMilli()
	if changedSince(chain, r.ItemID, cur, r.Version) {
		return fmt.Sprintf("deck %s was changed after this change; read it (list_decks) and update it yourself if needed", r.ItemID), nil
	}
	var prev library.DeckPrev
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	made, reason, err := s.presetBack(ctx, tx, uid, d, prev, chain)
	if reason != "" || err != nil {
		return reason, err
	}
	args := prev.UpdateDeckArgs
	args.DeckID = r.ItemID
	out, err := s.Decks.UpdateDeckIn(ctx, tx, uid, args, ch)
	if err != nil {
		return s.deckNotBack(ctx, tx, uid, r.ItemID, made, err)
	}
	// Versions as stored: the clock reads later differ.
	chain[r.ItemID] = versionAlias{now: out.UpdatedAt.UnixMilli()}
	if prev.PresetVersion != 0 {
		chain[out.Settings.PresetID] = versionAlias{now: out.UpdatedAt.UnixMilli()}
	}
	return "", nil
}

// restore brings a deleted card or deck back from the trash as
// restore_items does, which records the addition (undoing it deletes
// again).
func (s *UndoService) restore(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord, ch *kernel.Changes) (string, error) {
	args := contracts.RestoreItemsArgs{CardIDs: []string{r.ItemID}}
	if r.Kind == contracts.ChangeDeckDelete {
		args = contracts.RestoreItemsArgs{DeckIDs: []string{r.ItemID}}
	}
	res, err := s.Trash.RestoreIn(ctx, tx, uid, args, ch)
	if err != nil {
		return "", err
	}
	if out := append(res.Decks, res.Cards...)[0]; out.Status != contracts.OutcomeRestored {
		return out.Reason, nil
	}
	return "", nil
}

// goneReason says why a card a record names is no longer there.
func (s *UndoService) goneReason(ctx context.Context, tx ports.Stores, uid, cardID string) (string, error) {
	items, err := tx.Trash().TrashedItems(ctx, uid, nil, []string{cardID})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(items) > 0 {
		return fmt.Sprintf("card %s is in the trash: restore it (restore_items), then undo again", cardID), nil
	}
	return fmt.Sprintf("card %s no longer exists", cardID), nil
}

// undoSchedule puts a card's previous scheduling state back (a
// reschedule_cards change), unless the card was reviewed or changed since.
func (s *UndoService) undoSchedule(ctx context.Context, tx ports.Stores, p contracts.Principal, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	if !contracts.HasScopes(p.Scopes, []contracts.Scope{contracts.ScopeStudyWrite}) {
		return fmt.Sprintf("putting back card %s's schedule needs the study:write scope", r.ItemID), nil
	}
	rows, cur, gone, err := s.cardNow(ctx, tx, p.UserID, r.ItemID, chain)
	if gone != "" || err != nil {
		return gone, err
	}
	card := rows[0]
	if cur != r.Version {
		return fmt.Sprintf("card %s was reviewed or changed after this change; reschedule it yourself if needed", r.ItemID), nil
	}
	var prev struct {
		State contracts.CardState `json:"state"`
	}
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	switch err := tx.Cards().UpdateState(ctx, p.UserID, card.ID, card.Version, prev.State, s.Now()); {
	case contracts.IsKind(err, contracts.KindConflict):
		return fmt.Sprintf("card %s was changed by another request meanwhile; undo again", r.ItemID), nil
	case err != nil:
		return "", kernel.Fail(err)
	}
	ch.Add(contracts.ChangeCardSchedule, card.ID, card.Version+1, map[string]any{"state": card.State}, map[string]any{"state": prev.State})
	chain[r.ItemID] = versionAlias{now: card.Version + 1, as: r.Version - 1}
	return "", nil
}

// undoSettings puts back the account settings an update_settings changed
// (the record's Prev is update_settings arguments), unless they changed
// since: their version is their update time in milliseconds.
func (s *UndoService) undoSettings(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	a, _, err := tx.Settings().GetSettings(ctx, uid)
	if err != nil {
		return "", kernel.Fail(err)
	}
	cur := a.UpdatedAt.UnixMilli()
	if changedSince(chain, r.ItemID, cur, r.Version) {
		return "the account's settings were changed after this change; read them (get_settings) and update them yourself if needed", nil
	}
	var args contracts.UpdateSettingsArgs
	if err := json.Unmarshal(r.Prev, &args); err != nil {
		return "", kernel.Fail(err)
	}
	out, err := s.Settings.UpdateSettingsIn(ctx, tx, uid, args, ch)
	if err != nil {
		if contracts.IsKind(err, contracts.KindInvalid) {
			return "the account's settings cannot be put back: " + contracts.MessageOf(err), nil
		}
		return "", err
	}
	chain[r.ItemID] = versionAlias{now: out.UpdatedAt.UnixMilli()} // as stored
	return "", nil
}

// undoNote puts back the fields and tags an update_notes changed (the
// record's Prev is the note patch that does it), unless the note changed
// since (its version).
func (s *UndoService) undoNote(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	rows, err := tx.Notes().GetNotes(ctx, uid, []string{r.ItemID})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(rows) == 0 {
		return fmt.Sprintf("note %s no longer exists", r.ItemID), nil
	}
	if versionSeen(chain, r.ItemID, rows[0].Version) != r.Version {
		return fmt.Sprintf("note %s was changed after this change; read it (get_note) and edit it yourself if needed", r.ItemID), nil
	}
	if len(r.Prev) == 0 { // the change set nothing new: nothing to put back
		chain[r.ItemID] = versionAlias{now: rows[0].Version, as: r.Version - 1}
		return "", nil
	}
	var patch contracts.NotePatch
	if err := json.Unmarshal(r.Prev, &patch); err != nil {
		return "", kernel.Fail(err)
	}
	patch.ID = r.ItemID
	out, rewritten, err := s.Notes.ApplyNotePatch(ctx, tx, uid, patch, ch)
	if err != nil {
		return "", err
	}
	if out.Status != contracts.OutcomeUpdated {
		return fmt.Sprintf("note %s cannot be put back: %s", r.ItemID, out.Reason), nil
	}
	chain[r.ItemID] = versionAlias{now: rows[0].Version + 1, as: r.Version - 1}
	// A card the note's change rewrote took a step of its own then, and
	// undoing it takes another: the card stands for its version before
	// that step, so an older record of it (an edit, a review) still
	// matches. When the card changed after the note's step, the version
	// it stands for is still newer than any older record's.
	for id, was := range rewritten {
		chain[id] = versionAlias{now: was + 1, as: versionSeen(chain, id, was) - 1}
	}
	return "", nil
}
