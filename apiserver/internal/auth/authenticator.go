package auth

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/takhtabush/takhtabush/contracts"
)

// Authenticator turns a request's credential into a principal.
type Authenticator struct {
	svc           Services
	cfg           Config
	sessionCookie string
	secure        bool
	origins       map[string]bool

	devMu sync.Mutex
	devID string // the development account's id, once found
}

// New returns an authenticator.
func New(svc Services, cfg Config) *Authenticator {
	if cfg.DevUserEmail == "" {
		cfg.DevUserEmail = DefaultDevUserEmail
	}
	a := &Authenticator{svc: svc, cfg: cfg, secure: !InsecureLoopback(cfg.BaseURL), origins: map[string]bool{}}
	a.sessionCookie = SessionCookieSecure
	if !a.secure {
		a.sessionCookie = SessionCookieDev
	}
	if o := Origin(cfg.BaseURL); o != "" {
		a.origins[o] = true
	}
	for _, o := range cfg.ExtraOrigins {
		if o = Origin(o); o != "" {
			a.origins[o] = true
		}
	}
	return a
}

// SessionCookieName is the name of the web session cookie in this deployment.
func (a *Authenticator) SessionCookieName() string { return a.sessionCookie }

// SecureCookies reports whether cookies are set with Secure.
func (a *Authenticator) SecureCookies() bool { return a.secure }

// credential is what a request presented.
type credential struct {
	kind   contracts.CredentialKind // api_key, session, or "" for none
	secret string
	bad    string // set when the presentation itself is malformed
}

// presented extracts the credential of r without checking it. An API key
// wins over a cookie: it is what the client explicitly chose to send.
func (a *Authenticator) presented(r *http.Request) credential {
	if msg := conflicting(r.Header); msg != "" {
		return credential{kind: contracts.CredentialAPIKey, bad: msg}
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return credential{kind: contracts.CredentialAPIKey, bad: "unsupported Authorization scheme: send Authorization: Bearer <API key>"}
		}
		token = strings.TrimSpace(token)
		if token == "" {
			return credential{kind: contracts.CredentialAPIKey, bad: "empty bearer token"}
		}
		if strings.HasPrefix(token, contracts.OAuthAccessPrefix) {
			return credential{kind: contracts.CredentialOAuth, secret: token}
		}
		return credential{kind: contracts.CredentialAPIKey, secret: token}
	}
	if vals, ok := r.Header["X-Api-Key"]; ok {
		k := ""
		if len(vals) > 0 {
			k = strings.TrimSpace(vals[0])
		}
		if k == "" {
			// Presented but empty is a bad credential, never "none".
			return credential{kind: contracts.CredentialAPIKey, bad: "empty x-api-key header"}
		}
		return credential{kind: contracts.CredentialAPIKey, secret: k}
	}
	if c, err := r.Cookie(a.sessionCookie); err == nil && c.Value != "" {
		return credential{kind: contracts.CredentialSession, secret: c.Value}
	}
	return credential{}
}

// conflicting names why the credential headers of h disagree, or returns
// "": two Authorization headers, or an x-api-key that differs from the
// bearer token, are refused rather than resolved silently one way.
func conflicting(h http.Header) string {
	auths := h.Values("Authorization")
	keys := h.Values("X-Api-Key")
	switch {
	case len(auths) > 1:
		return "conflicting credentials: send one Authorization header"
	case len(keys) > 1:
		return "conflicting credentials: send one x-api-key header"
	case len(auths) == 1 && len(keys) == 1:
		scheme, token, _ := strings.Cut(strings.TrimSpace(auths[0]), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) != strings.TrimSpace(keys[0]) {
			return "conflicting credentials: Authorization and x-api-key carry different keys; send one"
		}
	}
	return ""
}

// Resolve returns the principal of r: the checked API key or session, or,
// in development mode and only when nothing was presented, the development
// account. Any failure is unauthenticated with a message that never echoes
// the credential.
func (a *Authenticator) Resolve(r *http.Request) (contracts.Principal, error) {
	ctx := r.Context()
	c := a.presented(r)
	switch {
	case c.bad != "":
		return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated, "%s", c.bad)
	case c.kind == contracts.CredentialOAuth:
		res, ok := ResourceFrom(ctx)
		if !ok || a.svc.OAuth == nil {
			return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated, "OAuth access tokens work on the MCP endpoint only")
		}
		p, err := a.svc.OAuth.Authenticate(ctx, c.secret, res.ID)
		return p, unauthenticated(err)
	case c.kind == contracts.CredentialAPIKey:
		p, err := a.svc.Keys.Authenticate(ctx, c.secret)
		return p, unauthenticated(err)
	case c.kind == contracts.CredentialSession:
		p, err := a.svc.Sessions.Authenticate(ctx, c.secret)
		return p, unauthenticated(err)
	case a.cfg.DevNoAuth && fromThisMachine(r):
		return a.devPrincipal(ctx)
	}
	return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated,
		"authentication required: connect with OAuth, or send an API key as Authorization: Bearer <key> or x-api-key")
}

// fromThisMachine reports whether r came straight from a loopback address,
// not through a proxy: development mode's credential-free owner access is
// for the developer's own machine, even when the server listens on every
// interface (a container's published port).
func fromThisMachine(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return false
	}
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if _, present := r.Header[h]; present {
			return false // present, even empty: a proxy was in the path
		}
	}
	return true
}

// unauthenticated keeps unauthenticated and unavailable failures and turns
// anything else into an unauthenticated one (the cause stays in err for logs).
func unauthenticated(err error) error {
	if err == nil {
		return nil
	}
	switch contracts.KindOf(err) {
	case contracts.KindUnauthenticated, contracts.KindUnavailable, contracts.KindInternal:
		return err
	}
	return &contracts.Error{Kind: contracts.KindUnauthenticated, Message: "credential refused", Err: err}
}

// devPrincipal is the development account with every scope.
func (a *Authenticator) devPrincipal(ctx context.Context) (contracts.Principal, error) {
	a.devMu.Lock()
	id := a.devID
	a.devMu.Unlock()
	if id == "" {
		u, err := a.svc.Accounts.UserByEmail(ctx, a.cfg.DevUserEmail)
		if err != nil {
			if contracts.IsKind(err, contracts.KindNotFound) {
				return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated,
					"development mode: the account %s does not exist; create it with takhtabush users create", a.cfg.DevUserEmail)
			}
			return contracts.Principal{}, err
		}
		id = u.ID
		a.devMu.Lock()
		a.devID = id
		a.devMu.Unlock()
	}
	return contracts.Principal{
		UserID:         id,
		Scopes:         append([]contracts.Scope(nil), contracts.AllScopes...),
		CredentialKind: contracts.CredentialDev,
	}, nil
}

// WebSession returns the principal of r's web session cookie and the
// session token, ignoring every other credential (pages are for people,
// never keys). Unauthenticated when there is no cookie or it is refused;
// unavailable when the check could not be made. For an unsafe method it
// also checks the origin and the CSRF token (header or form field) and
// fails forbidden with the reason.
func (a *Authenticator) WebSession(r *http.Request) (contracts.Principal, string, error) {
	c, err := r.Cookie(a.sessionCookie)
	if err != nil || c.Value == "" {
		return contracts.Principal{}, "", contracts.Errorf(contracts.KindUnauthenticated, "sign in to continue")
	}
	p, err := a.svc.Sessions.Authenticate(r.Context(), c.Value)
	if err != nil {
		return contracts.Principal{}, "", unauthenticated(err)
	}
	if unsafeMethod(r.Method) {
		if msg := a.checkOrigin(r); msg != "" {
			return contracts.Principal{}, "", contracts.Errorf(contracts.KindForbidden, "%s", msg)
		}
		if msg := a.checkCSRF(r); msg != "" {
			return contracts.Principal{}, "", contracts.Errorf(contracts.KindForbidden, "%s", msg)
		}
	}
	return p, c.Value, nil
}
