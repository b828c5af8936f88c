package sqlstore

import (
	"context"
	"database/sql"

	"github.com/takhtabush/takhtabush/ports"
)

// usageStore is the usage store on one handle.
type usageStore struct{ *handle }

// Usage returns the usage store on h.
func (h *handle) Usage() ports.UsageStore { return usageStore{h} }

// Usage returns the usage store outside any transaction.
func (s *Store) Usage() ports.UsageStore { return s.root.Usage() }

// heldCards counts a user's cards from the per-deck counts the triggers
// keep: one row per deck, not one per card.
const heldCards = `SELECT COALESCE(SUM(dc.total), 0) FROM decks d JOIN deck_counts dc ON dc.deck_id = d.id WHERE d.user_id = $1`

// ChargeWrites adds writes to the user's count of the day when it stays
// within max: one upsert whose update applies only under the quota (a new
// day starts the count over), returning the count and the cards held.
func (s usageStore) ChargeWrites(ctx context.Context, userID, day string, writes, max int) (int, int, bool, error) {
	var count, cards int
	err := s.q.QueryRowContext(ctx, `INSERT INTO account_usage (user_id, day, writes) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET
  writes = CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END,
  day = excluded.day
WHERE CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END <= $4
RETURNING writes, (`+heldCards+`)`, userID, day, writes, max).Scan(&count, &cards)
	switch {
	case errNoRows(err):
		return 0, 0, false, nil
	case err != nil:
		return 0, 0, false, s.fail(ctx, err, "charge writes", failMsgs{fk: "user not found"})
	}
	return count, cards, true, nil
}

// Holdings counts a user's decks and cards in one statement.
func (s usageStore) Holdings(ctx context.Context, userID string) (int, int, error) {
	var decks int
	var cards sql.NullInt64
	err := s.q.QueryRowContext(ctx, `SELECT COUNT(*), SUM(dc.total) FROM decks d LEFT JOIN deck_counts dc ON dc.deck_id = d.id WHERE d.user_id = $1`,
		userID).Scan(&decks, &cards)
	if err != nil {
		return 0, 0, s.s.wrap(ctx, err, "count holdings")
	}
	return decks, int(cards.Int64), nil
}
