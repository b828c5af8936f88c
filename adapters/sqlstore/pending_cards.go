package sqlstore

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// pendingCardsQuery lists a session's pending items with their cards in
// nextDueQuery's order, without learning cards due after the learn-ahead
// limit ($4).
const pendingCardsQuery = `SELECT i.position, ` + cardCols + `
FROM study_session_items i JOIN cards c ON c.user_id = i.user_id AND c.id = i.card_id
WHERE i.user_id = $1 AND i.session_id = $2 AND i.reviewed_at IS NULL AND (NOT (` + learningPhase + `) OR c.due <= $4)
ORDER BY CASE WHEN ` + learningPhase + ` AND c.due <= $3 THEN 0 WHEN NOT (` + learningPhase + `) THEN 1 ELSE 2 END,
  CASE WHEN ` + learningPhase + ` THEN c.due ELSE 0 END, i.position LIMIT $5`

// PendingCards lists a session's pending items with their cards in the
// order they are shown (see ports).
func (s sessionStore) PendingCards(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time, limit int) ([]ports.PendingCard, error) {
	if err := s.checkSession(ctx, userID, sessionID); err != nil {
		return nil, err
	}
	rows, err := s.q.QueryContext(ctx, pendingCardsQuery, userID, sessionID, ms(now), ms(learnAheadUntil), max(limit, 0))
	if err != nil {
		return nil, s.s.wrap(ctx, err, "pending cards")
	}
	defer rows.Close()
	out := []ports.PendingCard{}
	for rows.Next() {
		var (
			pos  int
			card cardDest
		)
		if err := rows.Scan(append([]any{&pos}, card.dest()...)...); err != nil {
			return nil, s.s.wrap(ctx, err, "pending cards")
		}
		c, err := card.row()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "pending cards")
		}
		learning := c.State.Phase == contracts.PhaseLearning || c.State.Phase == contracts.PhaseRelearning
		out = append(out, ports.PendingCard{Item: ports.SessionItem{Position: pos, CardID: c.ID, Due: c.State.Due, Learning: learning}, Card: c})
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "pending cards")
	}
	return out, nil
}
