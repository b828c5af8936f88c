package sqlstore

import (
	"context"
	"database/sql"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// ItemReview returns the review that completed the session's item at
// position: the review log of the item's card in the session at the
// moment the item was completed. Not found when the item is absent, still
// pending, or its review is gone.
func (s sessionStore) ItemReview(ctx context.Context, userID, sessionID string, position int) (ports.ReviewLog, error) {
	r := ports.ReviewLog{UserID: userID, SessionID: sessionID}
	var rating, prev, phase string
	var due, reviewed int64
	var last, duration sql.NullInt64
	err := s.q.QueryRowContext(ctx, `SELECT r.id, r.card_id, r.deck_id, r.rating, r.prev_phase, r.phase, r.due, r.stability,
r.difficulty, r.scheduled_days, r.reps, r.lapses, r.step, r.last_review, r.reviewed_at, r.duration_ms
FROM study_session_items i JOIN review_logs r
  ON r.user_id = i.user_id AND r.session_id = i.session_id AND r.card_id = i.card_id AND r.reviewed_at = i.reviewed_at
WHERE i.user_id = $1 AND i.session_id = $2 AND i.position = $3
ORDER BY r.id LIMIT 1`, userID, sessionID, position).Scan(&r.ID, &r.CardID, &r.DeckID, &rating, &prev, &phase, &due,
		&r.State.Stability, &r.State.Difficulty, &r.State.ScheduledDays, &r.State.Reps, &r.State.Lapses, &r.State.Step,
		&last, &reviewed, &duration)
	if errNoRows(err) {
		return ports.ReviewLog{}, contracts.Errorf(contracts.KindNotFound, "no review completed that item")
	}
	if err != nil {
		return ports.ReviewLog{}, s.s.wrap(ctx, err, "item review")
	}
	r.Rating, r.PrevPhase, r.State.Phase = contracts.Rating(rating), contracts.Phase(prev), contracts.Phase(phase)
	r.State.Due, r.State.LastReview, r.ReviewedAt = fromMs(due), fromNullMs(last), fromMs(reviewed)
	r.DurationMs = int(duration.Int64)
	return r, nil
}
