package sqlstore

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
)

// Ready reports whether the database serves the service's tables: it
// reads one row of the tables every request touches, so a database that
// answers pings but holds those tables locked (or lost them) is not ready.
// Unavailable otherwise; bound it with ctx.
func (s *Store) Ready(ctx context.Context) error {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) u)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM decks LIMIT 1) d)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM cards LIMIT 1) c)`).Scan(&n)
	if err != nil {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is not ready", Err: err}
	}
	return nil
}
