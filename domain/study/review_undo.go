package study

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Studied lists the ratings given in a session, in the order given, with
// each card's front and when it comes back. The last rating is marked
// undoable when it recorded the schedule it replaced.
func (s *StudyService) Studied(ctx context.Context, sessionID string) ([]contracts.StudiedCard, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	var out []contracts.StudiedCard
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		_, revs, err := s.sessionReviews(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(revs))
		for _, r := range revs {
			ids = append(ids, r.Log.CardID)
		}
		rows, err := tx.Cards().GetCards(ctx, uid, ids)
		if err != nil {
			return kernel.Fail(err)
		}
		fronts := make(map[string]string, len(rows))
		for _, c := range rows {
			fronts[c.ID] = c.Front
		}
		out = make([]contracts.StudiedCard, 0, len(revs))
		for i, r := range revs {
			l := r.Log
			out = append(out, contracts.StudiedCard{
				CardID: l.CardID, Position: r.Position, Front: fronts[l.CardID], Rating: l.Rating,
				ReviewedAt: l.ReviewedAt, NextDue: l.State.Due, IntervalHuman: HumanInterval(l.State, l.ReviewedAt),
				Undoable: i == len(revs)-1 && l.PrevState != nil,
			})
		}
		return nil
	})
	return out, err
}

// UndoLastReview takes back the session's last rating in one transaction:
// the card gets the schedule it had before (unless the rating was a cram
// one, which changed none), the leech marking the rating made is taken
// back (unmarkLeech), the review log goes (so daily limits and
// statistics no longer count it), the queue item is pending again and a
// learning step the rating re-queued leaves the queue. It refuses, with
// conflict, when the card's schedule is no longer the one the rating gave
// (reviewed elsewhere or rescheduled since): undoing then would overwrite
// a later change.
func (s *StudyService) UndoLastReview(ctx context.Context, sessionID string) (contracts.UndoResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.UndoResult{}, err
	}
	var out contracts.UndoResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		sess, revs, err := s.sessionReviews(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		if len(revs) == 0 {
			return contracts.Errorf(contracts.KindConflict, "no rating in this session to undo")
		}
		last := revs[len(revs)-1]
		log := last.Log
		if log.PrevState == nil {
			return contracts.Errorf(contracts.KindConflict, "the last rating of this session was recorded without its previous schedule and cannot be undone")
		}
		rows, err := tx.Cards().GetCards(ctx, uid, []string{log.CardID})
		if err != nil {
			return kernel.Fail(err)
		}
		if len(rows) == 0 {
			return contracts.Errorf(contracts.KindNotFound, "card %s no longer exists; its rating cannot be undone", log.CardID)
		}
		card := rows[0]
		if !SameSchedule(card.State, log.State) {
			return contracts.Errorf(contracts.KindConflict, "card %s changed after this rating (reviewed elsewhere or rescheduled); the rating cannot be undone", card.ID)
		}
		if err := s.unmarkLeech(ctx, tx, uid, log, &card); err != nil {
			return err
		}
		if log.Kind != ports.ReviewKindCram {
			switch err := tx.Cards().UpdateState(ctx, uid, card.ID, card.Version, *log.PrevState, s.Now()); {
			case contracts.IsKind(err, contracts.KindConflict):
				return contracts.Errorf(contracts.KindConflict, "card %s was changed by another request; try the undo again", card.ID)
			case err != nil:
				return kernel.Fail(err)
			}
		}
		if err := tx.Reviews().DeleteReview(ctx, uid, log.ID); err != nil {
			return kernel.Fail(err)
		}
		if err := tx.Sessions().ReopenItem(ctx, uid, sess.ID, last.Position); err != nil {
			return kernel.Fail(err)
		}
		p, _ := kernel.Actor(ctx)
		if err := kernel.RecordEvent(ctx, tx, s.IDs, s.Now(), p, contracts.AuditUndoReview,
			map[string]any{"sessionId": sess.ID, "cardId": card.ID, "rating": log.Rating, "position": last.Position}, card.ID); err != nil {
			return err
		}
		view, err := s.view(ctx, tx, sess, nil)
		if err != nil {
			return err
		}
		out = contracts.UndoResult{CardID: card.ID, Rating: log.Rating, Session: view}
		return nil
	})
	return out, err
}

// sessionReviews loads a live session of the user and the ratings given in it.
func (s *StudyService) sessionReviews(ctx context.Context, tx ports.Stores, uid, sessionID string) (ports.StudySessionRow, []ports.SessionReview, error) {
	sess, err := s.liveSession(ctx, tx, uid, sessionID)
	if err != nil {
		return sess, nil, err
	}
	revs, err := tx.Sessions().SessionReviews(ctx, uid, sess.ID)
	if err != nil {
		return sess, nil, kernel.Fail(err)
	}
	return sess, revs, nil
}

// SameSchedule reports whether two schedules are the same showing of a
// card: phase, due time, counters and last review.
func SameSchedule(a, b contracts.CardState) bool {
	sameLast := (a.LastReview == nil) == (b.LastReview == nil) && (a.LastReview == nil || a.LastReview.Equal(*b.LastReview))
	return a.Phase == b.Phase && a.Due.Equal(b.Due) && a.Reps == b.Reps && a.Lapses == b.Lapses &&
		a.Step == b.Step && a.ScheduledDays == b.ScheduledDays && sameLast
}
