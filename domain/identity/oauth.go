package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// OAuth defaults.
const (
	DefaultOAuthCodeTTL    = 60 * time.Second
	DefaultOAuthAccessTTL  = time.Hour
	DefaultOAuthRefreshTTL = 30 * 24 * time.Hour
	oauthSecretBits        = 192
	maxOAuthTokenLen       = 256
	maxOAuthStateLen       = 1024
	oauthTouchInterval     = time.Minute
)

// OAuthConfig configures the authorization server.
type OAuthConfig struct {
	// Issuer is the authorization server's identifier, the public origin
	// (returned as iss, RFC 9207).
	Issuer string
	// Resources maps every resource identifier a client may name to the
	// canonical resource (the audience) its tokens are bound to: <base>/mcp
	// with its aliases /mcp/ and /mcp/oauth, and the MCP host's origin.
	Resources map[string]string
	// DefaultResource is the audience when an authorization request names
	// none (<base>/mcp).
	DefaultResource string
	// CodeTTL, AccessTTL and RefreshTTL are the lifetimes of codes (at
	// most 60 s), access tokens and refresh tokens.
	CodeTTL, AccessTTL, RefreshTTL time.Duration
}

// OAuthService implements ports.OAuthService: a narrow OAuth 2.1
// authorization server for public clients (PKCE S256 only), with opaque
// tokens stored as SHA-256 hashes and bound to one resource.
type OAuthService struct {
	store ports.Database
	clock ports.Clock
	ids   ports.IDSource
	docs  ports.ClientDocumentFetcher
	cfg   OAuthConfig
}

var _ ports.OAuthService = (*OAuthService)(nil)

// NewOAuthService returns the authorization server. docs fetches client
// ID metadata documents; nil refuses them.
func NewOAuthService(store ports.Database, clock ports.Clock, ids ports.IDSource, docs ports.ClientDocumentFetcher, cfg OAuthConfig) *OAuthService {
	if cfg.CodeTTL <= 0 || cfg.CodeTTL > DefaultOAuthCodeTTL {
		cfg.CodeTTL = DefaultOAuthCodeTTL
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = DefaultOAuthAccessTTL
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = DefaultOAuthRefreshTTL
	}
	cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	return &OAuthService{store: store, clock: clock, ids: ids, docs: docs, cfg: cfg}
}

func (s *OAuthService) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }

// Register registers a public client.
func (s *OAuthService) Register(ctx context.Context, reg contracts.OAuthRegistration) (contracts.OAuthClient, error) {
	c, err := ValidateRegistration(reg)
	if err != nil {
		return c, err
	}
	c.ID = "tbc_" + s.ids.Secret(128)
	c.CreatedAt = s.now()
	if err := s.store.OAuth().CreateClient(ctx, c); err != nil {
		return contracts.OAuthClient{}, kernel.Fail(err)
	}
	return c, nil
}

// client resolves a client_id: a metadata document URL is fetched and
// checked, anything else is looked up among registered clients.
func (s *OAuthService) client(ctx context.Context, id string) (contracts.OAuthClient, error) {
	unknown := contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClient, "unknown client_id: register the client first or use a client ID metadata document URL")
	if id == "" {
		return contracts.OAuthClient{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "client_id is required")
	}
	if IsClientDocumentID(id) {
		if err := ValidateClientDocumentURL(id); err != nil {
			return contracts.OAuthClient{}, err
		}
		if s.docs == nil {
			return contracts.OAuthClient{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClient, "client ID metadata documents are not accepted here")
		}
		body, err := s.docs.FetchClientDocument(ctx, id)
		if err != nil {
			if contracts.KindOf(err) == contracts.KindInvalid || contracts.KindOf(err) == contracts.KindUnavailable {
				return contracts.OAuthClient{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClient,
					"the client's metadata document could not be used: "+contracts.MessageOf(err))
			}
			return contracts.OAuthClient{}, kernel.Fail(err)
		}
		return ParseClientDocument(id, body)
	}
	if !kernel.PlausibleID(id) {
		return contracts.OAuthClient{}, unknown
	}
	c, err := s.store.OAuth().ClientByID(ctx, id)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.OAuthClient{}, unknown
	}
	return c, kernel.Fail(err)
}

// resource returns the canonical resource a request names (the default
// when it names none). invalid_target when it names more than one or one
// not served here.
func (s *OAuthService) resource(names []string) (string, error) {
	switch len(names) {
	case 0:
		return s.cfg.DefaultResource, nil
	case 1:
		if r, ok := s.cfg.Resources[names[0]]; ok {
			return r, nil
		}
		return "", contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidTarget,
			"resource "+quoteURI(names[0])+" is not served here; use "+s.cfg.DefaultResource)
	}
	return "", contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidTarget, "name one resource")
}

// CheckAuthorize checks an authorization request.
func (s *OAuthService) CheckAuthorize(ctx context.Context, req contracts.OAuthAuthorizeRequest) (contracts.OAuthConsent, error) {
	var out contracts.OAuthConsent
	c, err := s.client(ctx, req.ClientID)
	if err != nil {
		return out, err
	}
	redirect := req.RedirectURI
	switch {
	case redirect == "" && len(c.RedirectURIs) == 1:
		redirect = c.RedirectURIs[0]
	case redirect == "":
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "redirect_uri is required")
	case !slices.Contains(c.RedirectURIs, redirect):
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest,
			"redirect_uri "+quoteURI(redirect)+" is not one the client registered (it must match exactly)")
	}
	if len(req.State) > maxOAuthStateLen {
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "state is longer than 1024 bytes")
	}
	out = contracts.OAuthConsent{Client: c, RedirectURI: redirect, State: req.State}
	if req.ResponseType != "code" {
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthUnsupportedResponseType, `response_type must be "code"`)
	}
	if req.CodeChallenge == "" {
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "PKCE is required: send code_challenge with code_challenge_method=S256")
	}
	if req.CodeChallengeMethod != "S256" {
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "code_challenge_method must be S256 (plain is not accepted)")
	}
	if !validChallenge(req.CodeChallenge) {
		return out, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "code_challenge must be the 43-character base64url SHA-256 of the verifier")
	}
	res, err := s.resource(req.Resource)
	if err != nil {
		return out, err
	}
	scopes, err := requestedScopes(req.Scope, c.Scopes)
	if err != nil {
		return out, err
	}
	out.Resource, out.Scopes, out.Challenge = res, scopes, req.CodeChallenge
	return out, nil
}

// requestedScopes parses a space-separated scope request within what the
// client may have (all scopes when it named none); an empty request asks
// for everything it may have.
func requestedScopes(raw string, allowed []contracts.Scope) ([]contracts.Scope, error) {
	if len(allowed) == 0 {
		allowed = contracts.AllScopes
	}
	if strings.TrimSpace(raw) == "" {
		return slices.Clone(allowed), nil
	}
	if len(raw) > maxOAuthScopeLen || strings.Contains(raw, ",") {
		return nil, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidScope, "scope must be a space-separated list of "+contracts.JoinScopes(contracts.AllScopes, " "))
	}
	sc, err := contracts.ParseScopes(raw)
	if err != nil {
		return nil, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidScope, contracts.MessageOf(err))
	}
	if !contracts.HasScopes(allowed, sc) {
		return nil, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidScope, "the client may ask only for "+contracts.JoinScopes(allowed, " "))
	}
	return sc, nil
}

// validChallenge reports whether c is a base64url SHA-256 digest.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil
}

// validVerifier reports whether v is a PKCE code verifier (RFC 7636 §4.1).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		b := v[i]
		if !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~') {
			return false
		}
	}
	return true
}

// Decide records the answer to a checked request.
func (s *OAuthService) Decide(ctx context.Context, req contracts.OAuthAuthorizeRequest, approve bool, granted []contracts.Scope) (string, error) {
	p, err := webPerson(ctx)
	if err != nil {
		return "", err
	}
	consent, err := s.CheckAuthorize(ctx, req)
	if err != nil {
		return "", err
	}
	if !approve {
		return s.redirect(consent, url.Values{"error": {string(contracts.OAuthAccessDenied)}, "error_description": {"the person declined"}}), nil
	}
	if len(granted) == 0 {
		return "", contracts.Errorf(contracts.KindInvalid, "choose at least one permission, or deny")
	}
	granted, err = contracts.ParseScopes(contracts.JoinScopes(granted, " "))
	if err != nil {
		return "", err
	}
	if !contracts.HasScopes(consent.Scopes, granted) {
		return "", contracts.Errorf(contracts.KindInvalid, "grant only permissions the application asked for")
	}
	code := contracts.OAuthCodePrefix + s.ids.Secret(oauthSecretBits)
	now := s.now()
	row := ports.OAuthCodeRow{
		Hash: kernel.TokenHash(code), UserID: p.UserID, ClientID: consent.Client.ID, ClientName: ClientDisplayName(consent.Client),
		ClientKind: consent.Client.Kind, RedirectURI: consent.RedirectURI, Challenge: consent.Challenge,
		Resource: consent.Resource, Scopes: granted, CreatedAt: now, ExpiresAt: now.Add(s.cfg.CodeTTL),
	}
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.OAuth().CreateCode(ctx, row); err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.ids, now, p, contracts.AuditApproveGrant, map[string]any{
			"client": row.ClientName, "clientId": row.ClientID, "scopes": granted, "resource": row.Resource})
	})
	if err != nil {
		return "", err
	}
	return s.redirect(consent, url.Values{"code": {code}}), nil
}

// Redirect returns the redirect URI of a checked request carrying v with
// state and iss (RFC 9207).
func (s *OAuthService) redirect(c contracts.OAuthConsent, v url.Values) string {
	return RedirectWith(c.RedirectURI, c.State, s.cfg.Issuer, v)
}

// RedirectWith adds v, state (when set) and iss to a redirect URI's query.
func RedirectWith(redirectURI, state, issuer string, v url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

// webPerson returns the principal when it is a signed-in person (a web
// session, or an operator): OAuth consent and grants are never managed
// with an API key or an OAuth token.
func webPerson(ctx context.Context) (contracts.Principal, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return p, err
	}
	switch p.CredentialKind {
	case contracts.CredentialSession, contracts.CredentialLocal, contracts.CredentialDev:
		return p, nil
	}
	return p, contracts.Errorf(contracts.KindForbidden, "connected apps are managed in the web app; sign in there")
}

// grantError is the invalid_grant refusal.
func grantError(msg string) error {
	return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidGrant, msg)
}

// Token answers a token request.
func (s *OAuthService) Token(ctx context.Context, req contracts.OAuthTokenRequest) (contracts.OAuthTokens, error) {
	if req.ClientID == "" {
		return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "client_id is required")
	}
	if err := s.knownClient(ctx, req.ClientID); err != nil {
		return contracts.OAuthTokens{}, err
	}
	switch req.GrantType {
	case "authorization_code":
		return s.exchangeCode(ctx, req)
	case "refresh_token":
		return s.refresh(ctx, req)
	case "":
		return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "grant_type is required")
	}
	return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthUnsupportedGrantType,
		"grant_type must be authorization_code or refresh_token")
}

// knownClient checks the client a token request names before anything
// is spent: a registered client must still be registered (never
// registered here, or purged unused), a metadata document URL well
// formed; otherwise invalid_client, unauthenticated (RFC 6749 §5.2: the
// endpoint answers 401, and a client such as Claude registers again).
func (s *OAuthService) knownClient(ctx context.Context, id string) error {
	if IsClientDocumentID(id) {
		if err := ValidateClientDocumentURL(id); err != nil {
			return contracts.OAuthErrorf(contracts.KindUnauthenticated, contracts.OAuthInvalidClient, contracts.MessageOf(err))
		}
		return nil
	}
	unknown := contracts.OAuthErrorf(contracts.KindUnauthenticated, contracts.OAuthInvalidClient,
		"unknown client_id: this client is not registered here (it may have been removed); register it again")
	if !kernel.PlausibleID(id) {
		return unknown
	}
	if _, err := s.store.OAuth().ClientByID(ctx, id); contracts.IsKind(err, contracts.KindNotFound) {
		return unknown
	} else if err != nil {
		return kernel.Fail(err)
	}
	return nil
}

func (s *OAuthService) exchangeCode(ctx context.Context, req contracts.OAuthTokenRequest) (contracts.OAuthTokens, error) {
	if req.Code == "" || len(req.Code) > maxOAuthTokenLen || !strings.HasPrefix(req.Code, contracts.OAuthCodePrefix) {
		return contracts.OAuthTokens{}, grantError("the authorization code is invalid")
	}
	now := s.now()
	h := kernel.TokenHash(req.Code)
	// Marking the code used commits on its own: a failed exchange spends
	// the code too, so a guessed verifier gets one try.
	code, first, err := s.store.OAuth().UseCode(ctx, h, now)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.OAuthTokens{}, grantError("the authorization code is invalid")
	}
	if err != nil {
		return contracts.OAuthTokens{}, kernel.Fail(err)
	}
	if !first {
		if code.GrantID != "" {
			if err := s.store.OAuth().RevokeGrant(ctx, code.UserID, code.GrantID, now); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
				return contracts.OAuthTokens{}, kernel.Fail(err)
			}
		}
		return contracts.OAuthTokens{}, grantError("the authorization code was already used; the tokens issued for it are revoked")
	}
	switch {
	case code.ClientID != req.ClientID:
		return contracts.OAuthTokens{}, grantError("the authorization code was issued to another client")
	case !now.Before(code.ExpiresAt):
		return contracts.OAuthTokens{}, grantError("the authorization code expired; authorize again")
	case req.RedirectURI != code.RedirectURI:
		return contracts.OAuthTokens{}, grantError("redirect_uri must be the one sent to the authorization endpoint")
	case !validVerifier(req.CodeVerifier):
		return contracts.OAuthTokens{}, grantError("code_verifier is missing or malformed")
	}
	sum := sha256.Sum256([]byte(req.CodeVerifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(code.Challenge)) != 1 {
		return contracts.OAuthTokens{}, grantError("code_verifier does not match the code_challenge")
	}
	if len(req.Resource) > 0 {
		res, err := s.resource(req.Resource)
		if err != nil {
			return contracts.OAuthTokens{}, err
		}
		if res != code.Resource {
			return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidTarget, "resource differs from the one authorized")
		}
	}
	grant := ports.OAuthGrantRow{UserID: code.UserID, OAuthGrant: contracts.OAuthGrant{
		ID: s.ids.NewID(), ClientID: code.ClientID, ClientName: code.ClientName, ClientKind: code.ClientKind,
		Resource: code.Resource, Scopes: code.Scopes, CreatedAt: now,
	}}
	var out contracts.OAuthTokens
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.OAuth().CreateGrant(ctx, grant); err != nil {
			return err
		}
		if err := tx.OAuth().SetCodeGrant(ctx, h, grant.ID); err != nil {
			return err
		}
		out, err = s.issue(ctx, tx, grant.ID, code.Scopes, now)
		return err
	})
	return out, kernel.Fail(err)
}

// issue mints an access token with scopes and a refresh token under a grant.
func (s *OAuthService) issue(ctx context.Context, tx ports.Stores, grantID string, scopes []contracts.Scope, now time.Time) (contracts.OAuthTokens, error) {
	access := contracts.OAuthAccessPrefix + s.ids.Secret(oauthSecretBits)
	refresh := contracts.OAuthRefreshPrefix + s.ids.Secret(oauthSecretBits)
	if err := tx.OAuth().CreateToken(ctx, ports.OAuthTokenRow{Hash: kernel.TokenHash(access), Kind: ports.OAuthAccessToken, GrantID: grantID,
		Scopes: scopes, CreatedAt: now, ExpiresAt: now.Add(s.cfg.AccessTTL)}); err != nil {
		return contracts.OAuthTokens{}, err
	}
	if err := tx.OAuth().CreateToken(ctx, ports.OAuthTokenRow{Hash: kernel.TokenHash(refresh), Kind: ports.OAuthRefreshToken, GrantID: grantID,
		Scopes: scopes, CreatedAt: now, ExpiresAt: now.Add(s.cfg.RefreshTTL)}); err != nil {
		return contracts.OAuthTokens{}, err
	}
	return contracts.OAuthTokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(s.cfg.AccessTTL / time.Second),
		RefreshToken: refresh, Scope: contracts.JoinScopes(scopes, " ")}, nil
}

func (s *OAuthService) refresh(ctx context.Context, req contracts.OAuthTokenRequest) (contracts.OAuthTokens, error) {
	invalid := grantError("the refresh token is invalid, expired or revoked; authorize again")
	if len(req.RefreshToken) > maxOAuthTokenLen || !strings.HasPrefix(req.RefreshToken, contracts.OAuthRefreshPrefix) {
		return contracts.OAuthTokens{}, invalid
	}
	now := s.now()
	h := kernel.TokenHash(req.RefreshToken)
	tok, grant, err := s.store.OAuth().TokenByHash(ctx, ports.OAuthRefreshToken, h)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.OAuthTokens{}, invalid
	}
	if err != nil {
		return contracts.OAuthTokens{}, kernel.Fail(err)
	}
	if grant.ClientID != req.ClientID {
		return contracts.OAuthTokens{}, grantError("the refresh token was issued to another client")
	}
	if grant.RevokedAt != nil || tok.RevokedAt != nil || !now.Before(tok.ExpiresAt) {
		return contracts.OAuthTokens{}, invalid
	}
	scopes := tok.Scopes
	if strings.TrimSpace(req.Scope) != "" {
		asked, err := requestedScopes(req.Scope, tok.Scopes)
		if err != nil {
			return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidScope,
				"a refresh cannot widen the grant: ask only for "+contracts.JoinScopes(tok.Scopes, " "))
		}
		scopes = asked
	}
	if len(req.Resource) > 0 {
		res, err := s.resource(req.Resource)
		if err != nil {
			return contracts.OAuthTokens{}, err
		}
		if res != grant.Resource {
			return contracts.OAuthTokens{}, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidTarget, "resource differs from the one authorized")
		}
	}
	first, err := s.store.OAuth().UseToken(ctx, h, now)
	if err != nil {
		return contracts.OAuthTokens{}, kernel.Fail(err)
	}
	if !first {
		// A rotated refresh token came back: someone holds a copy. Revoke
		// the whole grant, the legitimate client's tokens included.
		if err := s.store.OAuth().RevokeGrant(ctx, grant.UserID, grant.ID, now); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
			return contracts.OAuthTokens{}, kernel.Fail(err)
		}
		return contracts.OAuthTokens{}, grantError("the refresh token was already used; the grant is revoked, authorize again")
	}
	var out contracts.OAuthTokens
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		var err error
		out, err = s.issue(ctx, tx, grant.ID, scopes, now)
		return err
	})
	if err == nil {
		_ = s.store.OAuth().TouchGrant(ctx, grant.ID, now)
	}
	return out, kernel.Fail(err)
}

// Revoke revokes a token of the client; revoking a refresh token revokes
// its grant.
func (s *OAuthService) Revoke(ctx context.Context, token, clientID string) error {
	if token == "" || len(token) > maxOAuthTokenLen {
		return nil
	}
	kind := ports.OAuthAccessToken
	if strings.HasPrefix(token, contracts.OAuthRefreshPrefix) {
		kind = ports.OAuthRefreshToken
	} else if !strings.HasPrefix(token, contracts.OAuthAccessPrefix) {
		return nil
	}
	h := kernel.TokenHash(token)
	_, grant, err := s.store.OAuth().TokenByHash(ctx, kind, h)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil
	}
	if err != nil {
		return kernel.Fail(err)
	}
	if grant.ClientID != clientID {
		// RFC 7009 §2.1: a token of another client is not revoked; the
		// answer does not tell whether it exists.
		return nil
	}
	now := s.now()
	if kind == ports.OAuthRefreshToken {
		err = s.store.OAuth().RevokeGrant(ctx, grant.UserID, grant.ID, now)
	} else {
		err = s.store.OAuth().RevokeToken(ctx, h, now)
	}
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil
	}
	return kernel.Fail(err)
}

// Authenticate checks an access token presented to resource.
func (s *OAuthService) Authenticate(ctx context.Context, accessToken, resource string) (contracts.Principal, error) {
	denied := contracts.OAuthErrorf(contracts.KindUnauthenticated, contracts.OAuthInvalidToken, "the access token is invalid, expired or revoked")
	if len(accessToken) > maxOAuthTokenLen || !strings.HasPrefix(accessToken, contracts.OAuthAccessPrefix) {
		return contracts.Principal{}, denied
	}
	tok, grant, err := s.store.OAuth().TokenByHash(ctx, ports.OAuthAccessToken, kernel.TokenHash(accessToken))
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Principal{}, denied
	}
	if err != nil {
		return contracts.Principal{}, kernel.Fail(err)
	}
	now := s.now()
	if tok.RevokedAt != nil || grant.RevokedAt != nil || !now.Before(tok.ExpiresAt) {
		return contracts.Principal{}, denied
	}
	if canon, ok := s.cfg.Resources[resource]; !ok || canon != grant.Resource {
		return contracts.Principal{}, contracts.OAuthErrorf(contracts.KindUnauthenticated, contracts.OAuthInvalidToken,
			"the access token was issued for another resource")
	}
	if grant.LastUsedAt == nil || now.Sub(*grant.LastUsedAt) >= oauthTouchInterval {
		_ = s.store.OAuth().TouchGrant(ctx, grant.ID, now)
	}
	return contracts.Principal{UserID: grant.UserID, Scopes: slices.Clone(tok.Scopes), CredentialKind: contracts.CredentialOAuth, CredentialID: grant.ClientID,
		Trusted: grant.Trusted}, nil
}

// ListGrants lists the acting person's live grants.
func (s *OAuthService) ListGrants(ctx context.Context) ([]contracts.OAuthGrant, error) {
	p, err := webPerson(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.store.OAuth().ListGrants(ctx, p.UserID)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	out := make([]contracts.OAuthGrant, len(rows))
	for i, r := range rows {
		out[i] = r.OAuthGrant
	}
	return out, nil
}

// RevokeGrant revokes one of the acting person's grants.
func (s *OAuthService) RevokeGrant(ctx context.Context, grantID string) error {
	p, err := webPerson(ctx)
	if err != nil {
		return err
	}
	if !kernel.PlausibleID(grantID) {
		return kernel.NotFound("connected app", grantID)
	}
	return s.store.InTx(ctx, func(tx ports.Stores) error {
		now := s.now()
		err := tx.OAuth().RevokeGrant(ctx, p.UserID, grantID, now)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return kernel.NotFound("connected app", grantID)
		}
		if err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.ids, now, p, contracts.AuditRevokeGrant, map[string]any{"grantId": grantID}, grantID)
	})
}

// SetGrantTrusted marks one of the person's grants trusted (its calls
// skip the person's confirmation of big calls) or not. Not found when
// absent or another user's.
func (s *OAuthService) SetGrantTrusted(ctx context.Context, grantID string, trusted bool) error {
	p, err := webPerson(ctx)
	if err != nil {
		return err
	}
	if !kernel.PlausibleID(grantID) {
		return kernel.NotFound("connected app", grantID)
	}
	return s.store.InTx(ctx, func(tx ports.Stores) error {
		err := tx.OAuth().SetGrantTrusted(ctx, p.UserID, grantID, trusted)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return kernel.NotFound("connected app", grantID)
		}
		if err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.ids, s.now(), p, contracts.AuditTrust, map[string]any{"grantId": grantID, "trusted": trusted}, grantID)
	})
}

// PurgeExpired deletes codes and tokens that expired more than a day ago
// and returns how many went. Grants stay (Connected apps lists them until
// revoked).
func (s *OAuthService) PurgeExpired(ctx context.Context) (int, error) {
	n, err := s.store.OAuth().PurgeExpired(ctx, s.now().Add(-kernel.OAuthPurgeGrace))
	return n, kernel.Fail(err)
}
