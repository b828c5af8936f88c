package identity

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Web session row kinds.
const (
	kindLoginLink  = "login_link"
	kindWebSession = "session"
	// webTokenBits is the entropy of sign-in and session tokens.
	webTokenBits = 192
)

// WebSessionService signs people in to the web app with one-time links and
// session tokens. Only SHA-256 hashes of the tokens are stored.
type WebSessionService struct{ *kernel.Deps }

var _ ports.WebSessionService = (*WebSessionService)(nil)

// CreateLoginLink returns a one-time sign-in token for the account with
// this email, valid for Config.LoginLinkTTL.
func (s *WebSessionService) CreateLoginLink(ctx context.Context, email string) (string, time.Time, error) {
	email, err := cleanEmail(email)
	if err != nil {
		return "", time.Time{}, err
	}
	u, err := s.Store.Users().UserByEmail(ctx, email)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return "", time.Time{}, contracts.Errorf(contracts.KindNotFound, "no account with email %s", email)
	}
	if err != nil {
		return "", time.Time{}, kernel.Fail(err)
	}
	now := s.Now()
	token := s.IDs.Secret(webTokenBits)
	row := ports.WebSessionRow{Hash: kernel.TokenHash(token), UserID: u.ID, Kind: kindLoginLink, CreatedAt: now, ExpiresAt: now.Add(s.Cfg.LoginLinkTTL)}
	if err := s.Store.WebSessions().CreateWebSession(ctx, row); err != nil {
		return "", time.Time{}, kernel.Fail(err)
	}
	return token, row.ExpiresAt, nil
}

// ConsumeLoginLink spends a sign-in token and opens a web session.
func (s *WebSessionService) ConsumeLoginLink(ctx context.Context, token string) (string, contracts.User, error) {
	denied := contracts.Errorf(contracts.KindUnauthenticated, "this sign-in link is invalid, used or expired; request a new one")
	if token == "" || len(token) > kernel.MaxWebTokenLen {
		return "", contracts.User{}, denied
	}
	var session string
	var user contracts.User
	err := s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		h := kernel.TokenHash(token)
		method := "sign-in link"
		link, err := tx.WebSessions().WebSession(ctx, kindLoginLink, h)
		switch {
		case contracts.IsKind(err, contracts.KindNotFound):
			if user, err = s.spendSignupLink(ctx, tx, h, now); err != nil {
				return err
			}
			method = "sign-up link"
		case err != nil:
			return kernel.Fail(err)
		default:
			spent, err := tx.WebSessions().DeleteWebSession(ctx, kindLoginLink, h)
			if err != nil {
				return kernel.Fail(err)
			}
			if !spent || !now.Before(link.ExpiresAt) {
				return denied
			}
			if user, err = tx.Users().UserByID(ctx, link.UserID); err != nil {
				if contracts.IsKind(err, contracts.KindNotFound) {
					return denied
				}
				return kernel.Fail(err)
			}
		}
		session = s.IDs.Secret(webTokenBits)
		row := ports.WebSessionRow{Hash: kernel.TokenHash(session), UserID: user.ID, Kind: kindWebSession, CreatedAt: now, ExpiresAt: now.Add(s.Cfg.WebSessionTTL)}
		if err := tx.WebSessions().CreateWebSession(ctx, row); err != nil {
			return kernel.Fail(err)
		}
		p := contracts.Principal{UserID: user.ID, CredentialKind: contracts.CredentialSession, CredentialID: WebSessionID(session)}
		return kernel.RecordEvent(ctx, tx, s.IDs, now, p, contracts.AuditSignIn, map[string]any{"method": method})
	})
	if err != nil {
		return "", contracts.User{}, err
	}
	return session, user, nil
}

// spendSignupLink spends the sign-up link of hash h inside tx and returns
// the account it names, created now (open sign-up creates the account
// when its link is used). An account made for the email since the link
// was sent is the one signed in. Unauthenticated for an unknown, spent or
// expired link.
func (s *WebSessionService) spendSignupLink(ctx context.Context, tx ports.Stores, h []byte, now time.Time) (contracts.User, error) {
	denied := contracts.Errorf(contracts.KindUnauthenticated, "this sign-in link is invalid, used or expired; request a new one")
	l, err := tx.WebSessions().SignupLink(ctx, h)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.User{}, denied
	}
	if err != nil {
		return contracts.User{}, kernel.Fail(err)
	}
	spent, err := tx.WebSessions().DeleteSignupLink(ctx, h)
	if err != nil {
		return contracts.User{}, kernel.Fail(err)
	}
	if !spent || !now.Before(l.ExpiresAt) {
		return contracts.User{}, denied
	}
	u, err := tx.Users().UserByEmail(ctx, l.Email)
	if !contracts.IsKind(err, contracts.KindNotFound) {
		return u, kernel.Fail(err)
	}
	u = contracts.User{ID: s.IDs.NewID(), Email: l.Email, CreatedAt: now}
	if err := tx.Users().CreateUser(ctx, u); err != nil {
		return contracts.User{}, kernel.Fail(err)
	}
	return u, nil
}

// Authenticate checks a session token and returns its principal, with
// every scope. The principal's CredentialID is a prefix of the token's
// hash, never the token.
func (s *WebSessionService) Authenticate(ctx context.Context, sessionToken string) (contracts.Principal, error) {
	denied := contracts.Errorf(contracts.KindUnauthenticated, "your session has ended; sign in again")
	if sessionToken == "" || len(sessionToken) > kernel.MaxWebTokenLen {
		return contracts.Principal{}, denied
	}
	h := kernel.TokenHash(sessionToken)
	row, err := s.Store.WebSessions().WebSession(ctx, kindWebSession, h)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Principal{}, denied
	}
	if err != nil {
		return contracts.Principal{}, kernel.Fail(err)
	}
	if !s.Now().Before(row.ExpiresAt) {
		return contracts.Principal{}, denied
	}
	return contracts.Principal{
		UserID: row.UserID, Scopes: append([]contracts.Scope(nil), contracts.AllScopes...),
		CredentialKind: contracts.CredentialSession, CredentialID: WebSessionID(sessionToken),
	}, nil
}

// SignOut ends a session; an unknown session is not an error.
func (s *WebSessionService) SignOut(ctx context.Context, sessionToken string) error {
	if sessionToken == "" || len(sessionToken) > kernel.MaxWebTokenLen {
		return nil
	}
	_, err := s.Store.WebSessions().DeleteWebSession(ctx, kindWebSession, kernel.TokenHash(sessionToken))
	return kernel.Fail(err)
}

// WebSessionID is the public id of a web session: the hex of the first 8
// bytes of its token's SHA-256.
func WebSessionID(sessionToken string) string {
	return hex.EncodeToString(kernel.TokenHash(sessionToken)[:8])
}

// SignInLink returns a one-time sign-in token for the account with this
// email, as CreateLoginLink does. When no account has the email, signup
// decides: nil, or a signup that answers false (the caller's sign-up
// limit), fails not_found (the caller answers as for a known email, so the
// form reveals nothing); true returns a sign-up link instead. The account
// is created only when that link is used (ConsumeLoginLink), so asking for
// a link creates nothing but the link.
func (s *WebSessionService) SignInLink(ctx context.Context, email string, signup func() bool) (string, time.Time, error) {
	token, exp, err := s.CreateLoginLink(ctx, email)
	if !contracts.IsKind(err, contracts.KindNotFound) || signup == nil || !signup() {
		return token, exp, err
	}
	email, err = cleanEmail(email)
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.Now()
	token = s.IDs.Secret(webTokenBits)
	row := ports.SignupLinkRow{Hash: kernel.TokenHash(token), Email: email, CreatedAt: now, ExpiresAt: now.Add(s.Cfg.LoginLinkTTL)}
	if err := s.Store.WebSessions().CreateSignupLink(ctx, row); err != nil {
		return "", time.Time{}, kernel.Fail(err)
	}
	return token, row.ExpiresAt, nil
}

// PeekLoginLink returns the account a sign-in token would sign in, without
// spending it: the confirmation page shows it, so that a mail scanner
// fetching the link uses nothing up.
func (s *WebSessionService) PeekLoginLink(ctx context.Context, token string) (contracts.User, error) {
	denied := contracts.Errorf(contracts.KindUnauthenticated, "this sign-in link is invalid, used or expired; request a new one")
	if token == "" || len(token) > kernel.MaxWebTokenLen {
		return contracts.User{}, denied
	}
	link, err := s.Store.WebSessions().WebSession(ctx, kindLoginLink, kernel.TokenHash(token))
	if contracts.IsKind(err, contracts.KindNotFound) {
		// A sign-up link: the account it would create.
		l, err := s.Store.WebSessions().SignupLink(ctx, kernel.TokenHash(token))
		switch {
		case contracts.IsKind(err, contracts.KindNotFound) || (err == nil && !s.Now().Before(l.ExpiresAt)):
			return contracts.User{}, denied
		case err != nil:
			return contracts.User{}, kernel.Fail(err)
		}
		return contracts.User{Email: l.Email}, nil
	}
	if err != nil {
		return contracts.User{}, kernel.Fail(err)
	}
	if !s.Now().Before(link.ExpiresAt) {
		return contracts.User{}, denied
	}
	u, err := s.Store.Users().UserByID(ctx, link.UserID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.User{}, denied
	}
	return u, kernel.Fail(err)
}
