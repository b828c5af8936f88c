package oauthhttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// Endpoint paths.
const (
	AuthorizePath     = "/oauth/authorize"
	TokenPath         = "/oauth/token"
	RegisterPath      = "/oauth/register"
	RevokePath        = "/oauth/revoke"
	ConnectedAppsPath = "/settings/connected-apps"
	ASMetadataPath    = "/.well-known/oauth-authorization-server"
)

// ASMetadata returns the RFC 8414 authorization-server metadata of issuer.
func ASMetadata(issuer string) map[string]any {
	issuer = strings.TrimRight(issuer, "/")
	return map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         issuer + AuthorizePath,
		"token_endpoint":                                 issuer + TokenPath,
		"registration_endpoint":                          issuer + RegisterPath,
		"revocation_endpoint":                            issuer + RevokePath,
		"scopes_supported":                               contracts.ScopeStrings(contracts.AllScopes),
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"code_challenge_methods_supported":               []string{"S256"},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          issuer + "/connect",
	}
}

// ResourceMetadata returns the RFC 9728 metadata of the resource id,
// protected by issuer.
func ResourceMetadata(id, issuer string) map[string]any {
	return map[string]any{
		"resource":                 id,
		"resource_name":            "Takhtabush",
		"authorization_servers":    []string{strings.TrimRight(issuer, "/")},
		"scopes_supported":         contracts.ScopeStrings(contracts.AllScopes),
		"bearer_methods_supported": []string{"header"},
		"resource_documentation":   strings.TrimRight(issuer, "/") + "/connect",
	}
}

// JSONDocument serves a fixed JSON document, cacheable for an hour, with
// CORS for browser-based clients.
func JSONDocument(doc map[string]any) http.Handler {
	body, err := json.Marshal(doc)
	if err != nil {
		panic("oauthhttp: metadata does not marshal: " + err.Error())
	}
	return CORS(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			writeOAuthError(w, http.StatusMethodNotAllowed, contracts.OAuthInvalidRequest, "use GET")
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	}))
}

// CORS answers cross-origin requests from any origin, without
// credentials: the endpoints it wraps take no cookies, so an answer
// readable anywhere gives nothing away. Preflights get 204.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// oauthError is the RFC 6749 §5.2 / RFC 7591 §3.2.2 error body.
type oauthError struct {
	Error       contracts.OAuthCode `json:"error"`
	Description string              `json:"error_description,omitempty"`
}

// writeOAuthError writes an OAuth error body; it is never cached.
func writeOAuthError(w http.ResponseWriter, status int, code contracts.OAuthCode, description string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(oauthError{Error: code, Description: description})
}

// statusOf maps a service error to the HTTP status of an OAuth endpoint's
// error response and its code.
func statusOf(err error) (int, contracts.OAuthCode) {
	code := contracts.OAuthCodeOf(err)
	switch contracts.KindOf(err) {
	case contracts.KindUnavailable:
		return http.StatusServiceUnavailable, contracts.OAuthTemporarilyUnavailable
	case contracts.KindRateLimited:
		return http.StatusTooManyRequests, contracts.OAuthTemporarilyUnavailable
	case contracts.KindInternal:
		return http.StatusInternalServerError, contracts.OAuthServerError
	}
	if code == contracts.OAuthInvalidClient {
		return http.StatusUnauthorized, code
	}
	return http.StatusBadRequest, code
}
