package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

const keyCols = `id, user_id, name, scopes, hint, hash, created_at, expires_at, last_used_at, revoked_at, trusted`

// keyColsK is keyCols of the api_keys row aliased k.
const keyColsK = `k.id, k.user_id, k.name, k.scopes, k.hint, k.hash, k.created_at, k.expires_at, k.last_used_at, k.revoked_at, k.trusted`

// CreateKey inserts a key. Conflict on a duplicate id; not found when the
// user does not exist.
func (s keyStore) CreateKey(ctx context.Context, k ports.APIKeyRow) error {
	scopes, err := jsonText(contracts.ScopeStrings(k.Scopes))
	if err != nil {
		return contracts.Internal(err)
	}
	res, err := s.exec(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
		k.ID, k.UserID, k.Name, scopes, k.Hint, k.Hash, ms(k.CreatedAt), msPtr(k.ExpiresAt), msPtr(k.LastUsedAt), msPtr(k.RevokedAt), k.Trusted)
	if err != nil {
		return s.fail(ctx, err, "create key", failMsgs{fk: "user not found"})
	}
	n, err := s.affected(ctx, res, nil, "create key")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "an API key with this id already exists")
	}
	return nil
}

// CreateKeyWithin inserts a key when its user holds fewer than max live
// keys: it takes the user's row lock first (a no-op UPDATE, which SQLite's
// write lock and Postgres' row lock both serialise), so that a concurrent
// mint counts after this one commits, then counts and inserts.
func (s keyStore) CreateKeyWithin(ctx context.Context, k ports.APIKeyRow, max int) (held int, created bool, err error) {
	err = s.atomic(ctx, func(h *handle) error {
		res, err := h.exec(ctx, `UPDATE users SET id = id WHERE id = $1`, k.UserID)
		n, err := h.affected(ctx, res, err, "lock user for a key")
		if err != nil {
			return err
		}
		if n == 0 {
			return contracts.Errorf(contracts.KindNotFound, "user not found")
		}
		if err := h.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
			k.UserID, ms(k.CreatedAt)).Scan(&held); err != nil {
			return h.s.wrap(ctx, err, "count live keys")
		}
		if held >= max {
			return nil
		}
		created = true
		return keyStore{h}.CreateKey(ctx, k)
	})
	if err != nil {
		return 0, false, err
	}
	return held, created, nil
}

// scanKey reads one row of keyCols.
func scanKey(sc interface{ Scan(...any) error }, more ...any) (ports.APIKeyRow, error) {
	var k ports.APIKeyRow
	var scopes string
	var created int64
	var expires, used, revoked sql.NullInt64
	if err := sc.Scan(append([]any{&k.ID, &k.UserID, &k.Name, &scopes, &k.Hint, &k.Hash, &created, &expires, &used, &revoked, &k.Trusted}, more...)...); err != nil {
		return k, err
	}
	list, err := parseStrings(scopes)
	if err != nil {
		return k, err
	}
	k.Scopes = make([]contracts.Scope, len(list))
	for i, s := range list {
		k.Scopes[i] = contracts.Scope(s)
	}
	k.CreatedAt = fromMs(created)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = fromNullMs(expires), fromNullMs(used), fromNullMs(revoked)
	return k, nil
}

// KeyByID returns any user's key by id, with its owner's exposure
// settings read in the same query (one read authenticates a call). Not
// found when absent.
func (s keyStore) KeyByID(ctx context.Context, id string) (ports.APIKeyRow, error) {
	var (
		readOnly sql.NullBool
		tools    sql.NullString
		sets     sql.NullString
		confirm  sql.NullString
		updated  sql.NullInt64
	)
	k, err := scanKey(s.q.QueryRowContext(ctx, `SELECT `+keyColsK+`, x.read_only, x.disabled_tools, x.toolsets, x.confirm, x.updated_at
FROM api_keys k LEFT JOIN exposure_settings x ON x.user_id = k.user_id WHERE k.id = $1`, id), &readOnly, &tools, &sets, &confirm, &updated)
	if errNoRows(err) {
		return ports.APIKeyRow{}, notFound("API key")
	}
	if err != nil {
		return ports.APIKeyRow{}, s.s.wrap(ctx, err, "get key")
	}
	e := contracts.ExposureSettings{} // the zero value when never set, as GetExposure
	if updated.Valid {
		if e, err = exposureRow(readOnly.Bool, tools.String, sets.String, confirm.String, updated.Int64); err != nil {
			return ports.APIKeyRow{}, s.s.wrap(ctx, err, "get key")
		}
	}
	k.Exposure = &e
	return k, nil
}

// ListKeys returns a user's keys, newest first.
func (s keyStore) ListKeys(ctx context.Context, userID string) ([]ports.APIKeyRow, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list keys")
	}
	defer rows.Close()
	out := []ports.APIKeyRow{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "list keys")
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "list keys")
	}
	return out, nil
}

// RevokeKey sets RevokedAt if not yet set. Not found when absent or
// another user's.
func (s keyStore) RevokeKey(ctx context.Context, userID, id string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE user_id = $1 AND id = $2`, userID, id, ms(at))
	n, err := s.affected(ctx, res, err, "revoke key")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("API key")
	}
	return nil
}

// SetKeyTrusted marks a user's key trusted or not. Not found when absent
// or another user's.
func (s keyStore) SetKeyTrusted(ctx context.Context, userID, id string, trusted bool) error {
	res, err := s.exec(ctx, `UPDATE api_keys SET trusted = $3 WHERE user_id = $1 AND id = $2`, userID, id, trusted)
	n, err := s.affected(ctx, res, err, "trust key")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("API key")
	}
	return nil
}

// TouchKey records a use; the last-used time only moves forward. Not
// found when absent.
func (s keyStore) TouchKey(ctx context.Context, id string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE api_keys SET last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < $2 THEN $2 ELSE last_used_at END
WHERE id = $1`, id, ms(at))
	n, err := s.affected(ctx, res, err, "touch key")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("API key")
	}
	return nil
}
