package undo

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/ports"
)

// Reviews are undone from their logs, not from change records: a
// submit_review writes its operation id into the review log it appends,
// so undo_changes finds an agent's reviews by operation or by credential
// and time, and merges them with the change records newest first.
//
// Undoing a review puts the card's previous schedule back (the log's
// PrevState, as the study page's undo does) and turns the log's kind to
// undone (undone-cram for a cram rating): it leaves history, statistics
// and the optimiser's input, and still counts against the day's limits,
// so no daily-limit slot already used is given back. A session is never
// reopened. The undo writes a review.undo record; undoing that applies
// the review again (the log's schedule, its kind back), recorded as a
// review record, which can be undone in turn.
//
// A review that made its card a leech also wrote, under its operation,
// the change records of the marking (study's markLeech: a note.update of
// the note's tags, a card.update of the suspension), newer than its log,
// and its log's CardVersion is the card's version before the marking: an
// undo takes the marking back first (undoNote's version chain carries
// the card through the note's step), then the review; its undo applies
// the review, then the marking, again.

// reviewRef is the Prev of review.undo and review records: the review log.
type reviewRef struct {
	ReviewID string `json:"reviewId"`
}

// entry is one thing an undo takes back: a change record or a review.
type entry struct {
	id  string // the record's or the log's id: newest first by it
	rec *contracts.ChangeRecord
	rev *ports.ReviewLog
}

// reviewKey marks, in an undo's chain, a review it took back: a listed
// log a newer record of the same call took back is not taken back twice.
func reviewKey(id string) string { return "review " + id }

// merge puts records and reviews together, newest (highest id) first.
func merge(recs []contracts.ChangeRecord, revs []ports.ReviewLog) []entry {
	out := make([]entry, 0, len(recs)+len(revs))
	i, j := 0, 0
	for i < len(recs) || j < len(revs) {
		if j == len(revs) || (i < len(recs) && recs[i].ID > revs[j].ID) {
			out = append(out, entry{id: recs[i].ID, rec: &recs[i]})
			i++
		} else {
			out = append(out, entry{id: revs[j].ID, rev: &revs[j]})
			j++
		}
	}
	return out
}

// undoneKind is the kind a live review log takes when undone, and back.
var undoneKind = map[string]string{
	ports.ReviewKindReview: ports.ReviewKindUndone,
	ports.ReviewKindCram:   ports.ReviewKindUndoneCram,
}

// undoReview takes one live review back. The card must still have the
// review's schedule and be at the version the review left it at:
// wantVersion when not 0 (a review an undo applied again, from its
// record), else the log's. It returns why the review was skipped (""
// when undone).
func (s *UndoService) undoReview(ctx context.Context, tx ports.Stores, p contracts.Principal, log ports.ReviewLog, wantVersion int64,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	if !contracts.HasScopes(p.Scopes, []contracts.Scope{contracts.ScopeStudyWrite}) {
		return fmt.Sprintf("taking back a review of card %s needs the study:write scope", log.CardID), nil
	}
	to, live := undoneKind[log.Kind]
	if !live {
		return fmt.Sprintf("the review of card %s is already taken back", log.CardID), nil
	}
	rows, cur, gone, err := s.cardNow(ctx, tx, p.UserID, log.CardID, chain)
	if gone != "" || err != nil {
		return gone, err
	}
	card := rows[0]
	version := card.Version
	if log.Kind == ports.ReviewKindReview {
		if log.PrevState == nil {
			return fmt.Sprintf("the review of card %s was recorded without the schedule before it and cannot be taken back", card.ID), nil
		}
		want := cmp.Or(wantVersion, log.CardVersion)
		if !study.SameSchedule(card.State, log.State) || (want != 0 && cur != want) {
			return fmt.Sprintf("card %s was reviewed or changed after this review, so its schedule is left as it is; read it (search_cards) and reschedule it yourself if needed", card.ID), nil
		}
	}
	// The kind first: a concurrent undo of the same review loses here,
	// before anything is written.
	if reason, err := s.setKind(ctx, tx, p.UserID, log, to); reason != "" || err != nil {
		return reason, err
	}
	if log.Kind == ports.ReviewKindReview {
		if err := s.putState(ctx, tx, p.UserID, card, *log.PrevState); err != nil {
			return "", err
		}
		version++
		chain[card.ID] = versionAlias{now: version, as: cur - 1}
	}
	ch.Add(contracts.ChangeReviewUndo, card.ID, version, map[string]any{"reviewId": log.ID}, nil)
	chain[reviewKey(log.ID)] = versionAlias{}
	return "", nil
}

// redoReview applies again a review an earlier undo took back (a
// review.undo record), unless the card changed since that undo.
func (s *UndoService) redoReview(ctx context.Context, tx ports.Stores, p contracts.Principal, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	if !contracts.HasScopes(p.Scopes, []contracts.Scope{contracts.ScopeStudyWrite}) {
		return fmt.Sprintf("applying a review of card %s again needs the study:write scope", r.ItemID), nil
	}
	log, reason, err := s.loggedReview(ctx, tx, p.UserID, r)
	if reason != "" || err != nil {
		return reason, err
	}
	var to string
	for live, undone := range undoneKind {
		if undone == log.Kind {
			to = live
		}
	}
	if to == "" {
		return fmt.Sprintf("the review of card %s is in effect already", r.ItemID), nil
	}
	rows, cur, gone, err := s.cardNow(ctx, tx, p.UserID, log.CardID, chain)
	if gone != "" || err != nil {
		return gone, err
	}
	card := rows[0]
	if cur != r.Version {
		return fmt.Sprintf("card %s was reviewed or changed after the review was taken back, so its schedule is left as it is; read it (search_cards) and reschedule it yourself if needed", card.ID), nil
	}
	version := card.Version
	if reason, err := s.setKind(ctx, tx, p.UserID, log, to); reason != "" || err != nil {
		return reason, err
	}
	if to == ports.ReviewKindReview {
		if err := s.putState(ctx, tx, p.UserID, card, log.State); err != nil {
			return "", err
		}
		version++
		chain[card.ID] = versionAlias{now: version, as: r.Version - 1}
	}
	ch.Add(contracts.ChangeReview, card.ID, version, map[string]any{"reviewId": log.ID}, nil)
	return "", nil
}

// undoReviewRecord takes back a review an undo applied again (a review
// record): the card must be at the version the record gives.
func (s *UndoService) undoReviewRecord(ctx context.Context, tx ports.Stores, p contracts.Principal, r contracts.ChangeRecord,
	chain map[string]versionAlias, ch *kernel.Changes) (string, error) {
	log, reason, err := s.loggedReview(ctx, tx, p.UserID, r)
	if reason != "" || err != nil {
		return reason, err
	}
	return s.undoReview(ctx, tx, p, log, r.Version, chain, ch)
}

// loggedReview reads the review log a review or review.undo record names.
func (s *UndoService) loggedReview(ctx context.Context, tx ports.Stores, uid string, r contracts.ChangeRecord) (ports.ReviewLog, string, error) {
	var ref reviewRef
	if err := json.Unmarshal(r.Prev, &ref); err != nil || ref.ReviewID == "" {
		return ports.ReviewLog{}, fmt.Sprintf("this %s change names no review", r.Kind), nil
	}
	log, err := tx.Reviews().GetReview(ctx, uid, ref.ReviewID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		reason, err := s.goneReason(ctx, tx, uid, r.ItemID)
		return ports.ReviewLog{}, reason, err
	}
	if err != nil {
		return ports.ReviewLog{}, "", kernel.Fail(err)
	}
	return log, "", nil
}

// setKind turns a review log's kind to to, or says why another request
// got there first.
func (s *UndoService) setKind(ctx context.Context, tx ports.Stores, uid string, log ports.ReviewLog, to string) (string, error) {
	switch err := tx.Reviews().SetReviewKind(ctx, uid, log.ID, log.Kind, to); {
	case contracts.IsKind(err, contracts.KindConflict):
		return fmt.Sprintf("the review of card %s was taken back or applied again by another request meanwhile", log.CardID), nil
	case err != nil:
		return "", kernel.Fail(err)
	}
	return "", nil
}

// putState gives the card the schedule st. The card was read in this
// transaction, so a version miss is a concurrent writer: the chunk fails
// with conflict (the log's kind, changed just before, goes back with it).
func (s *UndoService) putState(ctx context.Context, tx ports.Stores, uid string, card ports.CardRow, st contracts.CardState) error {
	switch err := tx.Cards().UpdateState(ctx, uid, card.ID, card.Version, st, s.Now()); {
	case contracts.IsKind(err, contracts.KindConflict):
		return contracts.Errorf(contracts.KindConflict, "card %s was changed by another request during the undo; call undo_changes again", card.ID)
	case err != nil:
		return kernel.Fail(err)
	}
	return nil
}
