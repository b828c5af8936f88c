package identity

import (
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
)

// Bounds on what a client may register or describe.
const (
	maxRedirectURIs   = 10
	maxOAuthURILen    = 512
	maxClientNameLen  = 100
	maxOAuthScopeLen  = 512
	maxClientDocBytes = 5 << 10
)

// refusedSchemes can never be redirect URIs: a browser would run, show or
// read something instead of handing the code to an application.
var refusedSchemes = []string{"javascript", "data", "file", "vbscript", "about", "blob", "filesystem", "view-source", "mailto", "tel", "ftp", "ws", "wss"}

// browserSchemes are schemes a browser (or the system, for a browser)
// handles itself: each opens a web page, possibly in another browser, or
// the browser's own pages, with the code in it, so none can be an app's
// redirect URI. Schemes starting with browserSchemePrefixes or ending in
// -http or -https are refused as well (web+ schemes are handled by web
// pages).
var browserSchemes = []string{
	"intent", "android-app", "x-safari-http", "x-safari-https", "microsoft-edge", "microsoft-edge-holographic",
	"googlechrome", "googlechromes", "firefox", "opera", "opera-http", "opera-https", "brave", "duckduckgo", "vivaldi",
	"chrome", "edge", "about", "resource", "jar", "ms-browser-extension", "search-ms", "ms-appx-web",
}

// browserSchemePrefixes start schemes handled by browsers or web pages.
var browserSchemePrefixes = []string{"web+", "x-safari-", "microsoft-edge", "googlechrome", "firefox", "opera-", "chrome-", "moz-", "safari-", "edge-"}

// browserScheme reports whether a browser would handle scheme itself.
func browserScheme(scheme string) bool {
	if slices.Contains(browserSchemes, scheme) || strings.HasSuffix(scheme, "-http") || strings.HasSuffix(scheme, "-https") {
		return true
	}
	return slices.ContainsFunc(browserSchemePrefixes, func(p string) bool { return strings.HasPrefix(scheme, p) })
}

// ValidateRedirectURI checks one redirect URI against the registration
// rules: https; http only on a loopback host (any port); or a private-use
// scheme such as cursor:// or com.example.app:/cb, never one a browser
// would interpret itself; absolute, without a fragment, user info or
// white space, at most 512 bytes. The error carries invalid_redirect_uri.
func ValidateRedirectURI(raw string) error {
	bad := func(why string) error {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRedirectURI, "redirect URI "+quoteURI(raw)+" "+why)
	}
	if raw == "" {
		return bad("is empty")
	}
	if len(raw) > maxOAuthURILen {
		return bad("is longer than 512 bytes")
	}
	if !utf8.ValidString(raw) || strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }) >= 0 {
		return bad("contains white space or control characters")
	}
	if strings.Contains(raw, "#") {
		return bad("must not contain a fragment")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return bad("is not an absolute URI")
	}
	if u.Opaque != "" {
		return bad("must have a path or a host after the scheme")
	}
	if u.User != nil {
		return bad("must not contain user information")
	}
	switch u.Scheme {
	case "https":
		if u.Hostname() == "" {
			return bad("has no host")
		}
	case "http":
		if !loopbackHost(u.Hostname()) {
			return bad("uses http on a host other than localhost, 127.0.0.1 or [::1]; use https")
		}
	default:
		if slices.Contains(refusedSchemes, u.Scheme) {
			return bad("uses a scheme that cannot receive a code")
		}
		if browserScheme(strings.ToLower(u.Scheme)) {
			return bad("uses a scheme a browser handles itself (it would open a page, not the application); use https or the application's own scheme")
		}
	}
	return nil
}

// loopbackHost reports whether host is localhost or a loopback IP literal.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// quoteURI shows a URI in a message, shortened.
func quoteURI(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// ValidateRegistration checks a dynamic client registration (RFC 7591)
// and returns the client it describes (without id or time): public
// (token_endpoint_auth_method none), the code and refresh grants only,
// response type code, 1 to 10 distinct redirect URIs, a short name, an
// optional https client URI and known scopes. The error carries
// invalid_redirect_uri or invalid_client_metadata.
func ValidateRegistration(reg contracts.OAuthRegistration) (contracts.OAuthClient, error) {
	bad := func(msg string) error {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClientMetadata, msg)
	}
	var c contracts.OAuthClient
	if len(reg.RedirectURIs) == 0 {
		return c, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRedirectURI, "redirect_uris must list at least one redirect URI")
	}
	if len(reg.RedirectURIs) > maxRedirectURIs {
		return c, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRedirectURI, "redirect_uris may list at most 10 redirect URIs")
	}
	for i, r := range reg.RedirectURIs {
		if err := ValidateRedirectURI(r); err != nil {
			return c, err
		}
		if slices.Contains(reg.RedirectURIs[:i], r) {
			return c, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRedirectURI, "redirect URI "+quoteURI(r)+" is listed twice")
		}
	}
	if m := reg.TokenEndpointAuthMethod; m != "" && m != "none" {
		return c, bad(`token_endpoint_auth_method must be "none": Takhtabush registers public clients, which prove themselves with PKCE`)
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return c, bad(`grant_types may hold only "authorization_code" and "refresh_token"`)
		}
	}
	if len(reg.GrantTypes) > 0 && !slices.Contains(reg.GrantTypes, "authorization_code") {
		return c, bad(`grant_types must include "authorization_code"`)
	}
	for _, r := range reg.ResponseTypes {
		if r != "code" {
			return c, bad(`response_types may hold only "code"`)
		}
	}
	name := strings.Join(strings.Fields(reg.ClientName), " ")
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxClientNameLen || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return c, bad("client_name must be at most 100 printable characters")
	}
	if reg.ClientURI != "" {
		if err := validateClientURI(reg.ClientURI); err != nil {
			return c, bad(err.Error())
		}
	}
	var scopes []contracts.Scope
	if reg.Scope != "" {
		if len(reg.Scope) > maxOAuthScopeLen {
			return c, bad("scope is too long")
		}
		s, err := contracts.ParseScopes(reg.Scope)
		if err != nil {
			return c, bad(contracts.MessageOf(err))
		}
		scopes = s
	}
	return contracts.OAuthClient{
		Kind: contracts.OAuthClientRegistered, Name: name, URI: reg.ClientURI,
		RedirectURIs: slices.Clone(reg.RedirectURIs), Scopes: scopes,
	}, nil
}

// validateClientURI checks a client's home page: https (or loopback
// http), at most 512 bytes.
func validateClientURI(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > maxOAuthURILen || !utf8.ValidString(raw) || strings.ContainsAny(raw, " \t\r\n"):
		return contracts.Errorf(contracts.KindInvalid, "client_uri must be a URL of at most 512 bytes")
	case err != nil || u.Host == "" || u.User != nil:
		return contracts.Errorf(contracts.KindInvalid, "client_uri must be an absolute https URL")
	case u.Scheme == "https", u.Scheme == "http" && loopbackHost(u.Hostname()):
		return nil
	}
	return contracts.Errorf(contracts.KindInvalid, "client_uri must be an absolute https URL")
}

// IsClientDocumentID reports whether a client_id names a client ID
// metadata document (an https URL) rather than a registered client.
func IsClientDocumentID(clientID string) bool { return strings.HasPrefix(clientID, "https://") }

// ValidateClientDocumentURL checks a client_id that is a metadata document
// URL: https, a host, a path, no fragment, user info, dot segments or
// white space, at most 512 bytes. The error carries invalid_client.
func ValidateClientDocumentURL(raw string) error {
	bad := func(why string) error {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClient, "client_id "+quoteURI(raw)+" "+why)
	}
	if len(raw) > maxOAuthURILen {
		return bad("is longer than 512 bytes")
	}
	if !utf8.ValidString(raw) || strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }) >= 0 {
		return bad("contains white space or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return bad("is not an https URL")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return bad("must not contain a fragment or user information")
	}
	if u.Path == "" || u.Path == "/" {
		return bad("must have a path naming the document")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return bad("must not contain . or .. path segments")
		}
	}
	return nil
}

// ParseClientDocument checks a fetched client ID metadata document for
// the client id it was fetched from: JSON of at most 5 KiB, naming
// itself as client_id, with the registration rules for the rest. The
// error carries invalid_client.
func ParseClientDocument(clientID string, body []byte) (contracts.OAuthClient, error) {
	bad := func(msg string) error {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidClient, "the client's metadata document "+msg)
	}
	if len(body) > maxClientDocBytes {
		return contracts.OAuthClient{}, bad("is larger than 5 KiB")
	}
	var doc contracts.OAuthClientDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return contracts.OAuthClient{}, bad("is not a JSON object with the registration members")
	}
	if doc.ClientID != clientID {
		return contracts.OAuthClient{}, bad("does not name its own URL as client_id")
	}
	c, err := ValidateRegistration(doc.OAuthRegistration)
	if err != nil {
		return contracts.OAuthClient{}, bad("is refused: " + contracts.MessageOf(err))
	}
	c.ID, c.Kind = clientID, contracts.OAuthClientMetadataDocument
	return c, nil
}

// ClientDisplayName is how the consent page and Connected apps name a
// client: its name, or the host of its URI or client_id.
func ClientDisplayName(c contracts.OAuthClient) string {
	if c.Name != "" {
		return c.Name
	}
	if h := ClientDomain(c); h != "" {
		return h
	}
	return "An unnamed application"
}

// ClientDomain is the host a client vouches for: its client_id's for a
// metadata document, its client_uri's for a registered client ("" when
// it gave none).
func ClientDomain(c contracts.OAuthClient) string {
	raw := c.URI
	if c.Kind == contracts.OAuthClientMetadataDocument {
		raw = c.ID
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
