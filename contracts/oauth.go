package contracts

import (
	"errors"
	"time"
)

// OAuthCode is an OAuth error code (RFC 6749 §4.1.2.1 and §5.2, RFC 7591
// §3.2.2, RFC 8707 §2, RFC 6750 §3.1). It travels as the cause of a
// *contracts.Error, so the error keeps its kind and safe message while the
// OAuth endpoints can answer with the code the RFCs name.
type OAuthCode string

// The OAuth error codes Takhtabush answers with.
const (
	OAuthInvalidRequest          OAuthCode = "invalid_request"
	OAuthInvalidClient           OAuthCode = "invalid_client"
	OAuthInvalidGrant            OAuthCode = "invalid_grant"
	OAuthUnauthorizedClient      OAuthCode = "unauthorized_client"
	OAuthUnsupportedGrantType    OAuthCode = "unsupported_grant_type"
	OAuthUnsupportedResponseType OAuthCode = "unsupported_response_type"
	OAuthInvalidScope            OAuthCode = "invalid_scope"
	OAuthInvalidTarget           OAuthCode = "invalid_target"
	OAuthAccessDenied            OAuthCode = "access_denied"
	OAuthServerError             OAuthCode = "server_error"
	OAuthTemporarilyUnavailable  OAuthCode = "temporarily_unavailable"
	OAuthInvalidRedirectURI      OAuthCode = "invalid_redirect_uri"
	OAuthInvalidClientMetadata   OAuthCode = "invalid_client_metadata"
	OAuthInvalidToken            OAuthCode = "invalid_token"
)

// Error implements error.
func (c OAuthCode) Error() string { return string(c) }

// OAuthErrorf returns an error of the given kind and message whose cause
// is the OAuth code.
func OAuthErrorf(kind ErrorKind, code OAuthCode, message string) error {
	return &Error{Kind: kind, Message: message, Err: code}
}

// OAuthCodeOf returns the OAuth code err carries, or a code derived from
// its kind: unavailable is temporarily_unavailable, anything unexpected is
// server_error, and the rest invalid_request.
func OAuthCodeOf(err error) OAuthCode {
	var c OAuthCode
	if errors.As(err, &c) {
		return c
	}
	switch KindOf(err) {
	case KindUnavailable, KindRateLimited:
		return OAuthTemporarilyUnavailable
	case KindInternal:
		return OAuthServerError
	}
	return OAuthInvalidRequest
}

// OAuthClientKind says how an OAuth client became known.
type OAuthClientKind string

// The client kinds.
const (
	// OAuthClientRegistered came through dynamic client registration.
	OAuthClientRegistered OAuthClientKind = "registered"
	// OAuthClientMetadataDocument is an https URL serving its own metadata document.
	OAuthClientMetadataDocument OAuthClientKind = "metadata_document"
)

// OAuthClient is a public OAuth client: registered, or described by its
// client ID metadata document.
type OAuthClient struct {
	ID           string          `json:"client_id"`
	Kind         OAuthClientKind `json:"kind"`
	Name         string          `json:"client_name,omitempty"`
	URI          string          `json:"client_uri,omitempty"`
	RedirectURIs []string        `json:"redirect_uris"`
	Scopes       []Scope         `json:"scopes,omitempty"` // the scopes it may ask for; empty is all
	CreatedAt    time.Time       `json:"created_at"`
}

// OAuthGrant is one consent a person gave a client: the resource and
// scopes its tokens carry, and its lifetime. Revoking it stops every token
// issued under it.
type OAuthGrant struct {
	ID         string          `json:"id"`
	ClientID   string          `json:"clientId"`
	ClientName string          `json:"clientName"`
	ClientKind OAuthClientKind `json:"clientKind"`
	Resource   string          `json:"resource"`
	Scopes     []Scope         `json:"scopes"`
	CreatedAt  time.Time       `json:"createdAt"`
	LastUsedAt *time.Time      `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time      `json:"revokedAt,omitempty"`
	// Trusted grants skip the person's confirmation of big calls.
	Trusted bool `json:"trusted,omitempty"`
}

// OAuthAuthorizeRequest is an authorization request (RFC 6749 §4.1.1 with
// PKCE, RFC 7636, and a resource indicator, RFC 8707), as received.
type OAuthAuthorizeRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	Scope               string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	Resource            []string
}

// OAuthConsent is a checked authorization request, ready to be shown on
// the consent page.
type OAuthConsent struct {
	Client      OAuthClient
	RedirectURI string
	Resource    string
	Scopes      []Scope // what the client asked for (all it may have when it named none)
	State       string
	Challenge   string
}

// OAuthTokenRequest is a token request (RFC 6749 §4.1.3 and §6).
type OAuthTokenRequest struct {
	GrantType    string
	ClientID     string
	Code         string
	RedirectURI  string
	CodeVerifier string
	RefreshToken string
	Scope        string
	Resource     []string
}

// OAuthTokens is a token response (RFC 6749 §5.1).
type OAuthTokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// OAuthRegistration is a dynamic client registration request (RFC 7591
// §2); unknown members are ignored.
type OAuthRegistration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// OAuthClientDocument is a client ID metadata document: the registration
// members plus the client_id it must name itself with.
type OAuthClientDocument struct {
	ClientID string `json:"client_id"`
	OAuthRegistration
}

// Token prefixes: they tell an OAuth access token from an API key at a
// glance and in secret scanners.
const (
	OAuthAccessPrefix  = "tboa_"
	OAuthRefreshPrefix = "tbor_"
	OAuthCodePrefix    = "tboc_"
)
