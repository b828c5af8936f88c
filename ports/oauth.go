package ports

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// OAuthService is Takhtabush's OAuth 2.1 authorization server: client
// registration and metadata documents, the authorization decision, the
// token endpoint, revocation, access-token checks for /mcp, and the grants
// a person sees in Settings → Connected apps.
//
// Errors the OAuth endpoints answer carry a contracts.OAuthCode as their
// cause (contracts.OAuthCodeOf): invalid_request, invalid_client,
// invalid_grant, invalid_scope, invalid_target, unsupported_grant_type,
// unsupported_response_type, invalid_redirect_uri, invalid_client_metadata.
type OAuthService interface {
	// Register registers a public client (RFC 7591). Invalid with
	// invalid_redirect_uri or invalid_client_metadata when the request
	// breaks a rule; unavailable when the store is down.
	Register(ctx context.Context, reg contracts.OAuthRegistration) (contracts.OAuthClient, error)
	// CheckAuthorize checks an authorization request. When the client or
	// the redirect URI cannot be trusted it fails with an empty
	// RedirectURI in the returned consent (show the error on a page);
	// otherwise a failure comes with the consent's RedirectURI and State
	// set (send the error back to the client).
	CheckAuthorize(ctx context.Context, req contracts.OAuthAuthorizeRequest) (contracts.OAuthConsent, error)
	// Decide records the signed-in person's answer to a checked request
	// and returns the URL to send the browser to: with a one-time code,
	// state and iss when approved with the granted scopes (a subset of
	// those asked), with error=access_denied when not. Forbidden unless
	// the principal is a web session; fails as CheckAuthorize does.
	Decide(ctx context.Context, req contracts.OAuthAuthorizeRequest, approve bool, granted []contracts.Scope) (string, error)
	// Token answers a token request: authorization_code (PKCE S256) or
	// refresh_token (rotated). Unauthenticated with invalid_client when
	// client_id names no registered client (never registered, or removed)
	// or a malformed metadata document URL, before a code is spent. A
	// replayed code or a reused refresh token revokes the grant it
	// belongs to and fails with invalid_grant.
	Token(ctx context.Context, req contracts.OAuthTokenRequest) (contracts.OAuthTokens, error)
	// Revoke revokes an access or refresh token of the client (RFC 7009);
	// an unknown token is not an error.
	Revoke(ctx context.Context, token, clientID string) error
	// Authenticate checks an access token presented to resource and
	// returns its principal. Unauthenticated when it is unknown, expired,
	// revoked or issued for another resource.
	Authenticate(ctx context.Context, accessToken, resource string) (contracts.Principal, error)
	// ListGrants lists the acting person's live grants, newest first.
	// Forbidden unless the principal is a web session.
	ListGrants(ctx context.Context) ([]contracts.OAuthGrant, error)
	// SetGrantTrusted marks one of the acting person's grants trusted (its
	// calls skip the person's confirmation of big calls) or not. Not found
	// when absent or another user's.
	SetGrantTrusted(ctx context.Context, grantID string, trusted bool) error
	// RevokeGrant revokes one of the acting person's grants and every
	// token issued under it. Not found when absent; forbidden unless the
	// principal is a web session.
	RevokeGrant(ctx context.Context, grantID string) error
}

// ClientDocumentFetcher fetches client ID metadata documents.
type ClientDocumentFetcher interface {
	// FetchClientDocument returns the body of the document at url.
	// Invalid when the URL or the address it resolves to is refused, the
	// answer is not a 200 JSON document within the size cap, or it
	// redirects; unavailable when the host cannot be reached in time.
	FetchClientDocument(ctx context.Context, url string) ([]byte, error)
}

// OAuthCodeRow is a stored authorization code, by the hash of the code.
type OAuthCodeRow struct {
	Hash        []byte
	UserID      string
	ClientID    string
	ClientName  string
	ClientKind  contracts.OAuthClientKind
	RedirectURI string
	Challenge   string // the S256 code_challenge
	Resource    string
	Scopes      []contracts.Scope
	CreatedAt   time.Time
	ExpiresAt   time.Time
	UsedAt      *time.Time
	GrantID     string // the grant its exchange created, once exchanged
}

// OAuthGrantRow is a stored grant with its owner.
type OAuthGrantRow struct {
	contracts.OAuthGrant
	UserID string
}

// OAuthTokenKind tells access tokens from refresh tokens.
type OAuthTokenKind string

// The token kinds.
const (
	OAuthAccessToken  OAuthTokenKind = "access"
	OAuthRefreshToken OAuthTokenKind = "refresh"
)

// OAuthTokenRow is a stored token, by the hash of the token.
type OAuthTokenRow struct {
	Hash      []byte
	Kind      OAuthTokenKind
	GrantID   string
	Scopes    []contracts.Scope
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time // a refresh token's rotation
	RevokedAt *time.Time
}

// OAuthStore keeps OAuth clients, codes, grants and tokens.
type OAuthStore interface {
	// CreateClient inserts a registered client. Conflict on a duplicate id.
	CreateClient(ctx context.Context, client contracts.OAuthClient) error
	// ClientByID returns a registered client. Not found when absent.
	ClientByID(ctx context.Context, id string) (contracts.OAuthClient, error)
	// CreateCode inserts a code. Not found when the user does not exist.
	CreateCode(ctx context.Context, code OAuthCodeRow) error
	// UseCode marks a code used at at and returns it; first is true for
	// the one call that marked it. Not found when absent.
	UseCode(ctx context.Context, hash []byte, at time.Time) (code OAuthCodeRow, first bool, err error)
	// SetCodeGrant records the grant a code's exchange created. Not found
	// when the code is absent.
	SetCodeGrant(ctx context.Context, hash []byte, grantID string) error
	// CreateGrant inserts a grant. Not found when the user does not exist.
	CreateGrant(ctx context.Context, g OAuthGrantRow) error
	// GrantByID returns any user's grant, for the token endpoint. Not
	// found when absent.
	GrantByID(ctx context.Context, id string) (OAuthGrantRow, error)
	// ListGrants returns a user's unrevoked grants, newest first.
	ListGrants(ctx context.Context, userID string) ([]OAuthGrantRow, error)
	// SetGrantTrusted marks a user's grant trusted (its calls skip the
	// person's confirmation) or not. Not found when absent or another user's.
	SetGrantTrusted(ctx context.Context, userID, id string, trusted bool) error
	// RevokeGrant sets a grant's RevokedAt if not yet set. Not found when
	// absent or another user's.
	RevokeGrant(ctx context.Context, userID, id string, at time.Time) error
	// TouchGrant records a use; the last-used time only moves forward.
	TouchGrant(ctx context.Context, id string, at time.Time) error
	// CreateToken inserts a token. Not found when its grant does not exist.
	CreateToken(ctx context.Context, t OAuthTokenRow) error
	// TokenByHash returns a token of the kind with its grant. Not found
	// when absent.
	TokenByHash(ctx context.Context, kind OAuthTokenKind, hash []byte) (OAuthTokenRow, OAuthGrantRow, error)
	// UseToken marks a refresh token used (rotated) at at; first is true
	// for the one call that marked it. Not found when absent.
	UseToken(ctx context.Context, hash []byte, at time.Time) (first bool, err error)
	// RevokeToken sets a token's RevokedAt if not yet set. Not found when
	// absent.
	RevokeToken(ctx context.Context, hash []byte, at time.Time) error
	// PurgeExpired deletes codes and tokens that expired before before,
	// and returns how many rows went.
	PurgeExpired(ctx context.Context, before time.Time) (int, error)
}
