package sqlstore

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// ClaimKey records that a batch with this key and fingerprint is being
// applied. When the key was used before it returns that batch's fingerprint
// and stored result (nil until saved) with found set, and records nothing.
// Of concurrent claims in separate transactions exactly one claims: the
// others wait for it (Postgres: on the unique index; SQLite: on the single
// writer) and then see its row.
func (s idemStore) ClaimKey(ctx context.Context, userID, scope, key, fingerprint string, at time.Time) (string, []byte, bool, error) {
	res, err := s.exec(ctx, `INSERT INTO idempotency_keys (user_id, scope, idem_key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT DO NOTHING`, userID, scope, key, fingerprint, ms(at))
	if err != nil {
		return "", nil, false, s.fail(ctx, err, "claim key", failMsgs{fk: "user not found"})
	}
	n, err := s.affected(ctx, res, nil, "claim key")
	if err != nil {
		return "", nil, false, err
	}
	if n > 0 {
		return "", nil, false, nil
	}
	var stored string
	var result []byte
	err = s.q.QueryRowContext(ctx, `SELECT fingerprint, result FROM idempotency_keys WHERE user_id = $1 AND scope = $2 AND idem_key = $3`,
		userID, scope, key).Scan(&stored, &result)
	if errNoRows(err) {
		return "", nil, false, contracts.Errorf(contracts.KindConflict, "a concurrent request is using this idempotency key; retry")
	}
	if err != nil {
		return "", nil, false, s.s.wrap(ctx, err, "claim key")
	}
	return stored, result, true, nil
}

// SaveResult stores the result of a claimed key. Not found when the key
// was not claimed.
func (s idemStore) SaveResult(ctx context.Context, userID, scope, key string, result []byte) error {
	if result == nil {
		result = []byte{}
	}
	res, err := s.exec(ctx, `UPDATE idempotency_keys SET result = $4 WHERE user_id = $1 AND scope = $2 AND idem_key = $3`,
		userID, scope, key, result)
	n, err := s.affected(ctx, res, err, "save result")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("idempotency key")
	}
	return nil
}
