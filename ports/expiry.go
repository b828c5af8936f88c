package ports

import (
	"context"
	"time"
)

// Expiring names a kind of row that stops being useful at a time it
// carries, for ExpiryStore.
type Expiring string

// The kinds of expiring rows.
const (
	// ExpiringStudySessions are study sessions past their expiry, with
	// their queues (their reviews stay: review logs do not need them).
	ExpiringStudySessions Expiring = "study_sessions"
	// ExpiringWebSessions are sign-in links and web sessions past their expiry.
	ExpiringWebSessions Expiring = "web_sessions"
	// ExpiringIdempotencyKeys are remembered batch results, by the time
	// they were claimed.
	ExpiringIdempotencyKeys Expiring = "idempotency_keys"
	// ExpiringUploadIntents are media upload intents never uploaded and
	// past their expiry (uploaded media are never deleted by this kind).
	ExpiringUploadIntents Expiring = "upload_intents"
	// ExpiringOAuthCodes are OAuth authorization codes past their expiry.
	ExpiringOAuthCodes Expiring = "oauth_codes"
	// ExpiringOAuthTokens are OAuth access and refresh tokens past their
	// expiry (their grants stay).
	ExpiringOAuthTokens Expiring = "oauth_tokens"
	// ExpiringChangeRecords are change records past their expiry
	// (contracts.ChangeDays after the change).
	ExpiringChangeRecords Expiring = "change_records"
	// ExpiringSignupLinks are open sign-up links past their expiry.
	ExpiringSignupLinks Expiring = "signup_links"
	// ExpiringOAuthClients are registered OAuth clients never used, by
	// their registration time: no grant was ever made to them and no
	// authorization code is outstanding.
	ExpiringOAuthClients Expiring = "oauth_clients"
	// ExpiringConfirmations are confirmations of agents' calls past their
	// expiry (contracts.ConfirmTTL after the call asked).
	ExpiringConfirmations Expiring = "confirmations"
)

// ExpiringKinds lists every kind of expiring row.
var ExpiringKinds = []Expiring{
	ExpiringStudySessions, ExpiringWebSessions, ExpiringIdempotencyKeys,
	ExpiringUploadIntents, ExpiringOAuthCodes, ExpiringOAuthTokens, ExpiringChangeRecords,
	ExpiringSignupLinks, ExpiringOAuthClients, ExpiringConfirmations,
}

// ExpiryStore deletes rows whose time is over, a few at a time, for the
// purge every instance runs: each call is one short statement, and calls
// from several instances at once are safe (a row is deleted once; the
// others find it gone).
type ExpiryStore interface {
	// DeleteExpired deletes up to limit rows of the kind what whose time
	// (expiry, or claim time for idempotency keys) is before before, across
	// every user, and returns how many it deleted: fewer than limit means
	// none was left. Invalid for an unknown kind; a limit of 0 or less
	// deletes nothing.
	DeleteExpired(ctx context.Context, what Expiring, before time.Time, limit int) (int, error)
}
