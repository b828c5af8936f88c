// Package listing builds the documents that describe this service to
// directories and clients before they connect, from one place: the
// official MCP registry's server.json (schema 2025-12-11) and the Server
// Card of the SEP-2127 draft, and serves the card and the icon.
package listing

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/takhtabush/takhtabush/mcpcore"
)

// Paths of the public documents.
const (
	// CardPath is the Server Card under the MCP URL (issue 25 §3.2).
	CardPath = "/mcp/server-card"
	// WellKnownCardPath is where SEP-2127 puts it for discovery by domain.
	WellKnownCardPath = "/.well-known/mcp/server-card"
	// IconPath is the service's icon.
	IconPath = "/icon.svg"
)

// RegistrySchema is the server.json schema the official registry
// validates against; apiserver/testdata keeps a copy the tests use.
const RegistrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// CardSchema is the Server Card schema named by the SEP-2127 draft at
// commit e105d30b6264d957050389c0b0edf3ceae2a8224 of
// modelcontextprotocol/modelcontextprotocol (seps/2127-mcp-server-cards.md).
// The draft may change; the card follows that commit.
const CardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// The words every document uses.
const (
	Title       = "Takhtabush flashcards"
	Description = "Flashcards with FSRS spaced repetition: make decks, add cards in bulk, study, see progress."
)

//go:embed icon.svg
var icon []byte

// Service is what the documents say about one deployment.
type Service struct {
	// BaseURL is the public origin, https://host[:port].
	BaseURL string
	// Version is the server's version (serverInfo.version).
	Version string
}

// Name is the registry name: the reverse DNS of the public host, then
// "/takhtabush" (takhtabush.example -> example.takhtabush/takhtabush).
// The registry verifies a domain namespace by DNS or HTTP on that host.
func (s Service) Name() string {
	host := s.BaseURL
	if u, err := url.Parse(s.BaseURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	parts := strings.Split(host, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "/takhtabush"
}

// icon is one entry of icons in both documents.
type iconRef struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType"`
	Sizes    []string `json:"sizes"`
}

type remote struct {
	Type                      string          `json:"type"`
	URL                       string          `json:"url"`
	SupportedProtocolVersions []string        `json:"supportedProtocolVersions,omitempty"`
	Authentication            *authentication `json:"authentication,omitempty"`
}

type authentication struct {
	Required bool     `json:"required"`
	Schemes  []string `json:"schemes"`
}

// common are the fields server.json and the card share.
type common struct {
	Schema      string    `json:"$schema"`
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Version     string    `json:"version"`
	WebsiteURL  string    `json:"websiteUrl"`
	Icons       []iconRef `json:"icons"`
	Remotes     []remote  `json:"remotes"`
}

func (s Service) common(schema string, card bool) common {
	r := remote{Type: "streamable-http", URL: s.BaseURL + "/mcp"}
	if card {
		r.SupportedProtocolVersions = mcpcore.SupportedVersions()
		r.Authentication = &authentication{Required: true, Schemes: []string{"bearer", "oauth2"}}
	}
	return common{
		Schema: schema, Name: s.Name(), Title: Title, Description: Description, Version: s.Version,
		WebsiteURL: s.BaseURL,
		Icons:      []iconRef{{Src: s.BaseURL + IconPath, MIMEType: "image/svg+xml", Sizes: []string{"any"}}},
		Remotes:    []remote{r},
	}
}

// ServerJSON is the official MCP registry's server.json for the service.
func (s Service) ServerJSON() ([]byte, error) {
	return json.MarshalIndent(s.common(RegistrySchema, false), "", "  ")
}

// card is a Server Card: the common fields, what the server offers, and
// its primitives left to the protocol ("dynamic": they depend on the
// account's toolsets and scopes).
type card struct {
	common
	Capabilities map[string]any `json:"capabilities"`
	Tools        []string       `json:"tools"`
	Resources    []string       `json:"resources"`
}

// Card is the Server Card for the service.
func (s Service) Card() ([]byte, error) {
	return json.MarshalIndent(card{
		common: s.common(CardSchema, true),
		Capabilities: map[string]any{
			"tools": map[string]any{}, "resources": map[string]any{}, "logging": map[string]any{},
		},
		Tools:     []string{"dynamic"},
		Resources: []string{"dynamic"},
	}, "", "  ")
}

// CardHandler serves the card to anyone, without a credential: JSON, CORS
// open to GET (the draft requires it), cached for an hour.
func (s Service) CardHandler() (http.Handler, error) {
	body, err := s.Card()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		w.Write(body)
	}), nil
}

// IconHandler serves the icon (an SVG with no script, under its own CSP).
func IconHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("X-Content-Type-Options", "nosniff")
		w.Write(icon)
	})
}
