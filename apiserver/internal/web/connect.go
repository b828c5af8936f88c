package web

import (
	"net/http"

	"github.com/takhtabush/takhtabush/contracts"
)

// ConnectPage is the public MCP setup page.
type ConnectPage struct {
	site *Site
	data connectData
	h    http.Handler
}

type connectData struct {
	MCPURL, AltURL, AllScopes, Placeholder string
	Scopes                                 []string
	Clients                                []ClientConfig
	// DevUser is the account a request without a key acts as, when
	// development mode needs no key; "" otherwise.
	DevUser string
}

// NewConnectPage returns the setup page for the endpoint mcpURL (and the
// bare-origin alternative altURL, when there is one). devUser names the
// account requests without a key act as in development mode ("" outside
// it). Everything interpolated is escaped by html/template; a signed-in
// visitor sees the layout with their account, and their email in the
// examples.
func NewConnectPage(site *Site, mcpURL, altURL, devUser string) *ConnectPage {
	p := &ConnectPage{site: site, data: connectData{
		MCPURL:      mcpURL,
		AltURL:      altURL,
		DevUser:     devUser,
		Scopes:      contracts.ScopeStrings(contracts.AllScopes),
		AllScopes:   contracts.JoinScopes(contracts.AllScopes, ","),
		Placeholder: KeyPlaceholder,
		Clients:     ClientConfigs(mcpURL, KeyPlaceholder),
	}}
	p.h = site.Public(func(w http.ResponseWriter, r *http.Request, v View) {
		v.Title, v.Nav, v.Data = "Connect an AI assistant", "connect", p.data
		site.Render(w, r, "connect", v)
	})
	return p
}

// ServeHTTP serves the page.
func (p *ConnectPage) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.h.ServeHTTP(w, r) }
