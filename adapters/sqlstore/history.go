package sqlstore

import (
	"context"
	"database/sql"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// PresetHistory returns the non-cram review logs of up to limit of the
// user's cards in decks using presetID, card by card, for the optimiser.
func (s reviewStore) PresetHistory(ctx context.Context, userID, presetID, afterCardID string, limit int) ([]ports.ReviewLog, error) {
	out := []ports.ReviewLog{}
	if limit <= 0 {
		return out, nil
	}
	rows, err := s.q.QueryContext(ctx, `SELECT r.id, r.card_id, r.deck_id, r.rating, r.prev_phase, r.phase, r.reviewed_at, r.kind, r.day
FROM `+liveReviews("$1", "id", "user_id", "card_id", "deck_id", "rating", "prev_phase", "phase", "reviewed_at", "kind", "day")+`
WHERE r.user_id = $1 AND r.kind NOT IN ('cram', `+undoneKinds+`) AND r.card_id IN (
  SELECT c.id FROM cards c JOIN decks d ON d.user_id = c.user_id AND d.id = c.deck_id
  WHERE c.user_id = $1 AND d.preset_id = $2 AND c.id > $3 ORDER BY c.id LIMIT $4)
ORDER BY r.card_id, r.reviewed_at, r.id`, userID, presetID, afterCardID, limit)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "read preset history")
	}
	defer rows.Close()
	for rows.Next() {
		r := ports.ReviewLog{UserID: userID}
		var rating, prev, phase string
		var reviewed int64
		var day sql.NullInt64
		if err := rows.Scan(&r.ID, &r.CardID, &r.DeckID, &rating, &prev, &phase, &reviewed, &r.Kind, &day); err != nil {
			return nil, s.s.wrap(ctx, err, "read preset history")
		}
		r.Rating, r.PrevPhase, r.State.Phase = contracts.Rating(rating), contracts.Phase(prev), contracts.Phase(phase)
		r.ReviewedAt, r.Day = fromMs(reviewed), int(day.Int64)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "read preset history")
	}
	return out, nil
}
