package oauthhttp

import (
	_ "embed"
	"net/http"
	"net/url"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/domain/textrule"
)

//go:embed consent.html
var consentHTML string

//go:embed apps.html
var appsHTML string

// The page names in the shared renderer.
const (
	consentPage = "oauth-consent"
	appsPage    = "oauth-apps"
)

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

// errorPage shows why a request cannot go on: the layout's error page
// with the status of err's kind.
func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, v web.View, err error) {
	noStore(w)
	h.site.Fail(w, r, v, err)
}

// consentPage shows the consent form for a checked request.
func (h *Handler) consentPage(w http.ResponseWriter, r *http.Request, view web.View, c contracts.OAuthConsent, v url.Values, problem string) {
	var fields []hidden
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"} {
		if x := v.Get(k); x != "" {
			fields = append(fields, hidden{k, x})
		}
	}
	for _, x := range v["resource"] {
		fields = append(fields, hidden{"resource", x})
	}
	host, scheme := redirectTarget(c.RedirectURI)
	status := http.StatusOK
	if problem != "" {
		status = http.StatusBadRequest
	}
	view.Title, view.Narrow, view.Error = "Allow access", true, problem
	view.Data = map[string]any{
		"Name":           displayName(c.Client),
		"Domain":         textrule.Shown(identity.ClientDomain(c.Client)),
		"Document":       c.Client.Kind == contracts.OAuthClientMetadataDocument,
		"ClientID":       c.Client.ID,
		"Scopes":         scopeViews(c.Scopes),
		"Resource":       c.Resource,
		"RedirectHost":   host,
		"RedirectScheme": scheme,
		"Fields":         fields,
		"Action":         AuthorizePath,
	}
	noStore(w)
	h.site.R.Render(formActionTo(w, c.RedirectURI), r, status, consentPage, view)
}

// displayName is a client's name as a person deciding whether to trust it
// should read it: the name it gave itself without control, bidirectional
// or invisible characters (textrule.Shown), or what stands in for a name.
func displayName(c contracts.OAuthClient) string {
	c.Name = textrule.Shown(c.Name)
	return textrule.Shown(identity.ClientDisplayName(c))
}

// redirectTarget is where a consent's answer goes, the one fact about a
// client we check (its redirect URI matches a registered one exactly):
// the host of an http(s) redirect URI (with a port other than the
// default), or else the scheme of the app on the device that takes it.
func redirectTarget(raw string) (host, scheme string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", ""
	}
	if (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		return u.Host, ""
	}
	return "", u.Scheme
}

// formActionTo lets the consent form's answer redirect to the client: the
// pages' CSP allows forms to post only to ourselves, and browsers apply
// form-action to the redirect that follows the post as well.
func formActionTo(w http.ResponseWriter, redirectURI string) http.ResponseWriter {
	u, err := url.Parse(redirectURI)
	if err != nil || u.Scheme == "" {
		return w
	}
	src := u.Scheme + ":"
	if u.Host != "" {
		src = u.Scheme + "://" + u.Host
	}
	return &cspWriter{ResponseWriter: w, formAction: "form-action 'self' " + src}
}

// cspWriter widens form-action in the page's CSP as the header is sent.
type cspWriter struct {
	http.ResponseWriter
	formAction string
}

func (c *cspWriter) WriteHeader(status int) {
	h := c.Header()
	h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "form-action 'self'", c.formAction, 1))
	c.ResponseWriter.WriteHeader(status)
}
