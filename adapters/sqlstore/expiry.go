package sqlstore

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// expiryStore is the expiry store on one handle.
type expiryStore struct{ *handle }

// Expiry returns the expiry store on h.
func (h *handle) Expiry() ports.ExpiryStore { return expiryStore{h} }

// Expiry returns the expiry store outside any transaction.
func (s *Store) Expiry() ports.ExpiryStore { return s.root.Expiry() }

// expiryDeletes holds, for each kind of expiring row, one statement that
// deletes up to $2 of them whose time is before $1. Each picks its rows by
// key in a subquery with a LIMIT (neither database takes DELETE … LIMIT
// portably) along an index on the time, so a batch costs what it deletes.
var expiryDeletes = map[ports.Expiring]string{
	ports.ExpiringStudySessions: `DELETE FROM study_sessions WHERE id IN
(SELECT id FROM study_sessions WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringWebSessions: `DELETE FROM web_sessions WHERE (kind, hash) IN
(SELECT kind, hash FROM web_sessions WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringIdempotencyKeys: `DELETE FROM idempotency_keys WHERE (user_id, scope, idem_key) IN
(SELECT user_id, scope, idem_key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)`,
	ports.ExpiringUploadIntents: `DELETE FROM media WHERE id IN
(SELECT id FROM media WHERE uploaded_at IS NULL AND expires_at < $1 LIMIT $2) AND uploaded_at IS NULL`,
	ports.ExpiringOAuthCodes: `DELETE FROM oauth_codes WHERE hash IN
(SELECT hash FROM oauth_codes WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringOAuthTokens: `DELETE FROM oauth_tokens WHERE hash IN
(SELECT hash FROM oauth_tokens WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringChangeRecords: `DELETE FROM change_records WHERE id IN
(SELECT id FROM change_records WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringSignupLinks: `DELETE FROM signup_links WHERE hash IN
(SELECT hash FROM signup_links WHERE expires_at < $1 LIMIT $2)`,
	ports.ExpiringConfirmations: `DELETE FROM confirmations WHERE hash IN
(SELECT hash FROM confirmations WHERE expires_at < $1 LIMIT $2)`,
	// A client is used once a grant names it (revoked or not) or a code is
	// outstanding; the outer statement checks again, so a client that gets
	// its first code while the batch is picked stays.
	ports.ExpiringOAuthClients: `DELETE FROM oauth_clients WHERE id IN
(SELECT c.id FROM oauth_clients c WHERE c.created_at < $1
 AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
 AND NOT EXISTS (SELECT 1 FROM oauth_codes o WHERE o.client_id = c.id) LIMIT $2)
AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.id)
AND NOT EXISTS (SELECT 1 FROM oauth_codes o WHERE o.client_id = oauth_clients.id)`,
}

// DeleteExpired deletes up to limit rows of the kind what whose time is
// before before. Invalid for an unknown kind.
func (s expiryStore) DeleteExpired(ctx context.Context, what ports.Expiring, before time.Time, limit int) (int, error) {
	q, ok := expiryDeletes[what]
	if !ok {
		return 0, contracts.Errorf(contracts.KindInvalid, "unknown kind of expiring row %q", what)
	}
	if limit <= 0 {
		return 0, nil
	}
	res, err := s.exec(ctx, q, ms(before), limit)
	n, err := s.affected(ctx, res, err, "delete expired "+string(what))
	return int(n), err
}
