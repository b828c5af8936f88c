package background

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Retention of what expires, counted from its expiry.
const (
	// PurgeGrace keeps an expired study session, sign-in link, web session
	// or upload intent an hour before it is deleted, so a request that
	// began just before the expiry meets "expired", not a vanished row.
	PurgeGrace = time.Hour
	// IdempotencyKeyTTL is how long the result of a batch sent with an
	// idempotency key is remembered: a retry within it gets the same
	// result; after it the key is forgotten (a resent batch is still
	// deduplicated by its cards' content).
	IdempotencyKeyTTL = 24 * time.Hour
	// UnusedClientTTL is how long a registered OAuth client may wait for
	// its first use (a grant, or a code outstanding) before it is deleted:
	// anyone may register one, so unused ones must not pile up.
	UnusedClientTTL = 30 * 24 * time.Hour
)

// PurgeService deletes what has expired, for the purge scheduler that
// every instance runs. Every call is an idempotent batch of deletes, safe
// beside the same call on another instance.
type PurgeService struct{ *kernel.Deps }

// retention is how long after its time each kind of expiring row is kept.
var retention = map[ports.Expiring]time.Duration{
	ports.ExpiringStudySessions:   PurgeGrace,
	ports.ExpiringWebSessions:     PurgeGrace,
	ports.ExpiringIdempotencyKeys: IdempotencyKeyTTL,
	ports.ExpiringUploadIntents:   PurgeGrace,
	ports.ExpiringOAuthCodes:      kernel.OAuthPurgeGrace,
	ports.ExpiringOAuthTokens:     kernel.OAuthPurgeGrace,
	ports.ExpiringChangeRecords:   0, // they expire contracts.ChangeDays after the change: undo reaches back that far, no further
	ports.ExpiringOAuthClients:    UnusedClientTTL,
}

// Expired deletes up to limit rows of the kind what whose retention is
// over and returns how many it deleted (fewer than limit: none is left).
// Invalid for an unknown kind.
func (s *PurgeService) Expired(ctx context.Context, what ports.Expiring, limit int) (int, error) {
	n, err := s.Store.Expiry().DeleteExpired(ctx, what, s.Now().Add(-retention[what]), limit)
	return n, kernel.Fail(err)
}
