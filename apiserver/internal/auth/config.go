package auth

import (
	"net/url"
	"strings"

	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// Cookie names. The __Host- prefix (Secure, no Domain, Path=/) is used
// everywhere except plain-http loopback development, where browsers would
// refuse a Secure cookie.
const (
	SessionCookieSecure = "__Host-tb_session"
	SessionCookieDev    = "tb_session"
	CSRFCookie          = "tb_csrf"
	CSRFHeader          = "X-CSRF-Token"
)

// Services are the domain services authentication needs.
type Services struct {
	Keys     ports.KeyService
	Sessions ports.WebSessionService
	Accounts ports.AccountService
	// OAuth checks OAuth access tokens; nil refuses them.
	OAuth ports.OAuthService
}

// Config configures authentication.
type Config struct {
	// BaseURL is the public origin, e.g. https://takhtabush.example.
	BaseURL string
	// DevNoAuth lets a request without any credential act as DevUserEmail's
	// account with every scope. Set it only when ENVIRONMENT=development
	// and MCP_DEV_NO_AUTH=true.
	DevNoAuth bool
	// DevUserEmail is the development account (owner@localhost by default).
	DevUserEmail string
	// ExtraOrigins are origins besides the base URL's from which ambient
	// credentials may make unsafe requests (the loopback forms of the
	// listen address in development).
	ExtraOrigins []string
	// CSRFKey is the server key under which CSRF tokens are derived (at
	// least 32 bytes; shared by every instance).
	CSRFKey []byte
}

// DefaultDevUserEmail is the development owner account.
const DefaultDevUserEmail = "owner@localhost"

// InsecureLoopback reports whether baseURL is plain http on a loopback
// host: the only case where cookies go without Secure and __Host-.
func InsecureLoopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme != "http" {
		return false
	}
	return mcpcore.IsLoopbackHost(u.Hostname())
}

// Origin returns the scheme://host[:port] of a URL, lower-cased.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// ResourceMetadataURL is the RFC 9728 metadata URL for the /mcp resource.
func ResourceMetadataURL(baseURL string) string {
	return strings.TrimRight(baseURL, "/") + "/.well-known/oauth-protected-resource/mcp"
}
