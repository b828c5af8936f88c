package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// stateJSON encodes a card's previous schedule for review_logs.prev_state
// (times at the store's millisecond precision); nil is NULL.
func stateJSON(st *contracts.CardState) (any, error) {
	if st == nil {
		return nil, nil
	}
	c := *st
	c.Due = fromMs(ms(c.Due))
	if c.LastReview != nil {
		lr := fromMs(ms(*c.LastReview))
		c.LastReview = &lr
	}
	return jsonText(c)
}

// parseState decodes review_logs.prev_state; NULL is nil.
func parseState(v sql.NullString) (*contracts.CardState, error) {
	if !v.Valid || v.String == "" {
		return nil, nil
	}
	var st contracts.CardState
	if err := json.Unmarshal([]byte(v.String), &st); err != nil {
		return nil, err
	}
	st.Due = st.Due.UTC()
	if st.LastReview != nil {
		lr := st.LastReview.UTC()
		st.LastReview = &lr
	}
	return &st, nil
}

// SessionReviews returns the ratings given in a session with the items they
// completed, in the order given (each log with its operation: the study
// page's undo takes back the leech marking recorded under it); those
// undo_changes took back are gone. Not found for a missing or another
// user's session.
func (s sessionStore) SessionReviews(ctx context.Context, userID, sessionID string) ([]ports.SessionReview, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT i.position, r.id, r.card_id, r.deck_id, r.rating, r.prev_phase, r.phase, r.due,
r.stability, r.difficulty, r.scheduled_days, r.reps, r.lapses, r.step, r.last_review, r.reviewed_at, r.duration_ms,
r.kind, r.prev_interval, r.prev_state, r.operation_id
FROM study_session_items i JOIN review_logs r
  ON r.user_id = i.user_id AND r.session_id = i.session_id AND r.card_id = i.card_id AND r.reviewed_at = i.reviewed_at
WHERE i.user_id = $1 AND i.session_id = $2 AND i.reviewed_at IS NOT NULL AND r.kind NOT IN (`+undoneKinds+`)
ORDER BY i.reviewed_at, i.position, r.id`, userID, sessionID)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "session reviews")
	}
	defer rows.Close()
	out := []ports.SessionReview{}
	seen := map[int]bool{} // one log per item, should two share a millisecond
	for rows.Next() {
		sr := ports.SessionReview{Log: ports.ReviewLog{UserID: userID, SessionID: sessionID}}
		r := &sr.Log
		var rating, prev, phase, kind string
		var due, reviewed int64
		var last, duration, prevIvl sql.NullInt64
		var prevState, op sql.NullString
		if err := rows.Scan(&sr.Position, &r.ID, &r.CardID, &r.DeckID, &rating, &prev, &phase, &due, &r.State.Stability,
			&r.State.Difficulty, &r.State.ScheduledDays, &r.State.Reps, &r.State.Lapses, &r.State.Step, &last, &reviewed,
			&duration, &kind, &prevIvl, &prevState, &op); err != nil {
			return nil, s.s.wrap(ctx, err, "session reviews")
		}
		if seen[sr.Position] {
			continue
		}
		seen[sr.Position] = true
		r.Rating, r.PrevPhase, r.State.Phase = contracts.Rating(rating), contracts.Phase(prev), contracts.Phase(phase)
		r.State.Due, r.State.LastReview, r.ReviewedAt = fromMs(due), fromNullMs(last), fromMs(reviewed)
		r.DurationMs, r.Kind, r.PrevInterval, r.OperationID = int(duration.Int64), kind, int(prevIvl.Int64), op.String
		if r.PrevState, err = parseState(prevState); err != nil {
			return nil, s.s.wrap(ctx, err, "session reviews")
		}
		out = append(out, sr)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "session reviews")
	}
	if len(out) == 0 {
		if err := s.checkSession(ctx, userID, sessionID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReopenItem makes a reviewed item pending again and removes the pending
// items of its card queued after it. Not found when the item is absent;
// conflict when it is pending.
func (s sessionStore) ReopenItem(ctx context.Context, userID, sessionID string, position int) error {
	return s.atomic(ctx, func(h *handle) error {
		res, err := h.exec(ctx, `UPDATE study_session_items SET reviewed_at = NULL
WHERE user_id = $1 AND session_id = $2 AND position = $3 AND reviewed_at IS NOT NULL`, userID, sessionID, position)
		n, err := h.affected(ctx, res, err, "reopen item")
		if err != nil {
			return err
		}
		if n == 0 {
			return h.unchangedItem(ctx, userID, sessionID, position, "this card is not rated in the session; nothing to undo")
		}
		_, err = h.exec(ctx, `DELETE FROM study_session_items
WHERE user_id = $1 AND session_id = $2 AND position > $3 AND reviewed_at IS NULL
  AND card_id = (SELECT card_id FROM study_session_items WHERE user_id = $1 AND session_id = $2 AND position = $3)`,
			userID, sessionID, position)
		return h.fail(ctx, err, "reopen item", failMsgs{})
	})
}

// DeleteReview deletes one of the user's review logs. Not found when absent.
func (s reviewStore) DeleteReview(ctx context.Context, userID, reviewID string) error {
	res, err := s.exec(ctx, `DELETE FROM review_logs WHERE user_id = $1 AND id = $2`, userID, reviewID)
	n, err := s.affected(ctx, res, err, "delete review")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("review")
	}
	return nil
}
