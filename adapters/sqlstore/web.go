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

// CreateSignupLink inserts a sign-up link. Conflict when the hash exists.
func (s webStore) CreateSignupLink(ctx context.Context, l ports.SignupLinkRow) error {
	res, err := s.exec(ctx, `INSERT INTO signup_links (hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		l.Hash, l.Email, ms(l.CreatedAt), ms(l.ExpiresAt))
	n, err := s.affected(ctx, res, err, "create sign-up link")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "this sign-up link already exists")
	}
	return nil
}

// SignupLink returns a sign-up link by hash. Not found when absent.
func (s webStore) SignupLink(ctx context.Context, hash []byte) (ports.SignupLinkRow, error) {
	var l ports.SignupLinkRow
	var created, expires int64
	err := s.q.QueryRowContext(ctx, `SELECT hash, email, created_at, expires_at FROM signup_links WHERE hash = $1`, hash).
		Scan(&l.Hash, &l.Email, &created, &expires)
	if errNoRows(err) {
		return ports.SignupLinkRow{}, notFound("sign-up link")
	}
	if err != nil {
		return ports.SignupLinkRow{}, s.s.wrap(ctx, err, "get sign-up link")
	}
	l.CreatedAt, l.ExpiresAt = fromMs(created), fromMs(expires)
	return l, nil
}

// DeleteSignupLink deletes a sign-up link and reports whether it existed,
// so that of concurrent deletes exactly one sees true.
func (s webStore) DeleteSignupLink(ctx context.Context, hash []byte) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM signup_links WHERE hash = $1`, hash)
	n, err := s.affected(ctx, res, err, "delete sign-up link")
	return n > 0, err
}
