package sqlstore

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// CreateWebSession inserts a row. Conflict when the kind and hash exist;
// not found when the user does not exist.
func (s webStore) CreateWebSession(ctx context.Context, r ports.WebSessionRow) error {
	res, err := s.exec(ctx, `INSERT INTO web_sessions (kind, hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT DO NOTHING`, r.Kind, r.Hash, r.UserID, ms(r.CreatedAt), ms(r.ExpiresAt))
	if err != nil {
		return s.fail(ctx, err, "create web session", failMsgs{fk: "user not found"})
	}
	n, err := s.affected(ctx, res, nil, "create web session")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "this session already exists")
	}
	return nil
}

// WebSession returns a row of the kind by hash. Not found when absent.
func (s webStore) WebSession(ctx context.Context, kind string, hash []byte) (ports.WebSessionRow, error) {
	r := ports.WebSessionRow{Kind: kind}
	var created, expires int64
	err := s.q.QueryRowContext(ctx, `SELECT hash, user_id, created_at, expires_at FROM web_sessions WHERE kind = $1 AND hash = $2`,
		kind, hash).Scan(&r.Hash, &r.UserID, &created, &expires)
	if errNoRows(err) {
		return ports.WebSessionRow{}, notFound("session")
	}
	if err != nil {
		return ports.WebSessionRow{}, s.s.wrap(ctx, err, "get web session")
	}
	r.CreatedAt, r.ExpiresAt = fromMs(created), fromMs(expires)
	return r, nil
}

// DeleteWebSession deletes a row and reports whether it existed, so that
// of concurrent deletes exactly one sees true.
func (s webStore) DeleteWebSession(ctx context.Context, kind string, hash []byte) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM web_sessions WHERE kind = $1 AND hash = $2`, kind, hash)
	n, err := s.affected(ctx, res, err, "delete web session")
	return n > 0, err
}
