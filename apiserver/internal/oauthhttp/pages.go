package oauthhttp

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

//go:embed pages.html
var pagesHTML string

//go:embed page.css
var pageCSS []byte

// StylesheetPath is where the pages' stylesheet is served.
const StylesheetPath = "/oauth/page.css"

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"when": func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
}).Parse(pagesHTML))

// ScopeWords says what a scope lets an application do, for people.
var ScopeWords = map[contracts.Scope]string{
	contracts.ScopeDecksRead:   "See your decks and cards",
	contracts.ScopeStatsRead:   "See your study statistics and plans",
	contracts.ScopeDecksWrite:  "Create, change and delete your decks and cards",
	contracts.ScopeStudyWrite:  "Run study sessions and record your answers",
	contracts.ScopeMediaWrite:  "Upload pictures and sound for your cards",
	contracts.ScopeStudyRender: "Show the interactive study card in the conversation",
}

// scopeView is one scope on a page.
type scopeView struct {
	Scope contracts.Scope
	Words string
}

func scopeViews(sc []contracts.Scope) []scopeView {
	out := make([]scopeView, len(sc))
	for i, s := range sc {
		out[i] = scopeView{Scope: s, Words: ScopeWords[s]}
	}
	return out
}

// hidden is one hidden field carrying the authorization request.
type hidden struct{ Name, Value string }

// Stylesheet serves the pages' stylesheet.
func Stylesheet(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(pageCSS)
}

// render writes a page with a strict CSP: nothing but our stylesheet, no
// scripts, no frames. form-action stays open: a consent answer redirects
// to the client, and browsers apply form-action to that redirect too.
func render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// errorPage shows why a request cannot go on.
func (h *Handler) errorPage(w http.ResponseWriter, status int, msg string) {
	noStore(w)
	render(w, status, "error", map[string]any{"Message": msg, "CSS": StylesheetPath})
}

// consentPage shows the consent form for a checked request.
func (h *Handler) consentPage(w http.ResponseWriter, c contracts.OAuthConsent, v url.Values, csrf, problem string) {
	var fields []hidden
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"} {
		if x := v.Get(k); x != "" {
			fields = append(fields, hidden{k, x})
		}
	}
	for _, x := range v["resource"] {
		fields = append(fields, hidden{"resource", x})
	}
	redirect, _ := url.Parse(c.RedirectURI)
	redirectTo := c.RedirectURI
	if redirect != nil && redirect.Host != "" {
		redirectTo = redirect.Scheme + "://" + redirect.Host
	}
	status := http.StatusOK
	if problem != "" {
		status = http.StatusBadRequest
	}
	render(w, status, "consent", map[string]any{
		"CSS":        StylesheetPath,
		"Name":       clientName(c.Client),
		"Domain":     clientDomain(c.Client),
		"Document":   c.Client.Kind == contracts.OAuthClientMetadataDocument,
		"ClientID":   c.Client.ID,
		"Scopes":     scopeViews(c.Scopes),
		"Resource":   c.Resource,
		"RedirectTo": redirectTo,
		"Fields":     fields,
		"CSRF":       csrf,
		"Action":     AuthorizePath,
		"Problem":    problem,
	})
}

// clientName is the name a client gave itself, or its domain.
func clientName(c contracts.OAuthClient) string {
	if c.Name != "" {
		return c.Name
	}
	if d := clientDomain(c); d != "" {
		return d
	}
	return "An unnamed application"
}

// clientDomain is the host a client vouches for: its client_id's for a
// metadata document, its client_uri's for a registered one.
func clientDomain(c contracts.OAuthClient) string {
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
