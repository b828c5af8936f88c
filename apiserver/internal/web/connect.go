package web

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"

	"github.com/takhtabush/takhtabush/contracts"
)

//go:embed connect.html
var connectHTML string

var connectTemplate = template.Must(template.New("connect").Parse(connectHTML))

// ConnectPage is the public MCP setup page.
type ConnectPage struct {
	page []byte
}

// NewConnectPage renders the page once for the endpoint mcpURL (and the
// bare-origin alternative altURL, when there is one). Everything
// interpolated is escaped by html/template.
func NewConnectPage(mcpURL, altURL string) (*ConnectPage, error) {
	var b bytes.Buffer
	err := connectTemplate.Execute(&b, map[string]any{
		"MCPURL":      mcpURL,
		"AltURL":      altURL,
		"Scopes":      contracts.ScopeStrings(contracts.AllScopes),
		"AllScopes":   contracts.JoinScopes(contracts.AllScopes, ","),
		"Placeholder": KeyPlaceholder,
		"Clients":     ClientConfigs(mcpURL, KeyPlaceholder),
	})
	if err != nil {
		return nil, err
	}
	return &ConnectPage{page: b.Bytes()}, nil
}

// ServeHTTP serves the page.
func (p *ConnectPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(p.page)
}
