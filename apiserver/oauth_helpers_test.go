package apiserver_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// The OAuth tests act as a remote connector would: discover from the MCP
// URL alone, register (or use a metadata document), send the person
// through the consent page, exchange the code with golang.org/x/oauth2
// and call tools with the official SDK client.

// noRedirect is an HTTP client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// testRedirect is the loopback redirect URI the tests register; nothing
// listens there: the tests read the Location the server sends.
const testRedirect = "http://127.0.0.1:7777/callback"

// discovered is what a client learns from the MCP URL alone.
type discovered struct {
	resource string
	as       map[string]any
}

// discover follows the 401 challenge to the resource and server metadata.
func discover(t *testing.T, e *env, mcpPath string) discovered {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.addr+mcpPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(resp.Header.Get("WWW-Authenticate"))
	if resp.StatusCode != http.StatusUnauthorized || m == nil {
		t.Fatalf("POST %s without a token: %d, WWW-Authenticate %q", mcpPath, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	prm := getJSON(t, e, m[1])
	servers, _ := prm["authorization_servers"].([]any)
	if len(servers) != 1 || servers[0] != e.base {
		t.Fatalf("resource metadata %v names no authorization server %s", prm, e.base)
	}
	as := getJSON(t, e, e.base+"/.well-known/oauth-authorization-server")
	if as["issuer"] != e.base {
		t.Fatalf("issuer %v, want %s (the metadata URL's origin)", as["issuer"], e.base)
	}
	return discovered{resource: prm["resource"].(string), as: as}
}

// getJSON GETs a JSON document from the service (its URL's path on e.addr).
func getJSON(t *testing.T, e *env, raw string) map[string]any {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := e.request(t, http.MethodGet, u.RequestURI(), nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", raw, resp.StatusCode, body)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET %s: no CORS for browser-based clients", raw)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("GET %s: %v", raw, err)
	}
	return m
}

// register registers a client through DCR and returns its id.
func register(t *testing.T, e *env, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(e.addr+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("registration answer %s: %v", data, err)
	}
	return resp.StatusCode, m
}

// oauthConfig is the x/oauth2 configuration of a client on e.
func oauthConfig(e *env, d discovered, clientID string, scopes ...string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID,
		Endpoint: oauth2.Endpoint{
			AuthURL:   d.as["authorization_endpoint"].(string),
			TokenURL:  d.as["token_endpoint"].(string),
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: testRedirect,
		Scopes:      scopes,
	}
}

// ctxFor makes x/oauth2 talk to the listener (the base URL may differ).
func ctxFor(e *env) context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second, Transport: rewrite{e}})
}

// rewrite sends requests for the base URL to the listener.
type rewrite struct{ e *env }

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if strings.HasPrefix(req.URL.String(), r.e.base) {
		u, _ := url.Parse(r.e.addr + req.URL.RequestURI())
		req.URL = u
	}
	return http.DefaultTransport.RoundTrip(req)
}

// page GETs a URL of the service with the session cookies, not following redirects.
func page(t *testing.T, e *env, raw string, cookies []*http.Cookie) (*http.Response, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, e.addr+u.RequestURI(), nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var inputRE = regexp.MustCompile(`<input type="(hidden|checkbox)" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"( checked)?>`)

// submitConsent reads the consent form of page and posts it the way a
// browser would, with decision and the scopes left ticked (all when
// grant is nil), and returns the response (a redirect or a page).
func submitConsent(t *testing.T, e *env, body string, cookies []*http.Cookie, decision string, grant []string) (*http.Response, string) {
	t.Helper()
	form := url.Values{}
	start := strings.Index(body, `<form method="post" action="/oauth/authorize">`)
	if start < 0 {
		t.Fatalf("no consent form in the page:\n%s", body)
	}
	body = body[start:]
	body = body[:strings.Index(body, "</form>")]
	for _, m := range inputRE.FindAllStringSubmatch(body, -1) {
		name, value := m[2], html.UnescapeString(m[3])
		if m[1] == "checkbox" && (grant != nil && !slices.Contains(grant, value)) {
			continue
		}
		form.Add(name, value)
	}
	if form.Get("csrf_token") == "" || form.Get("client_id") == "" {
		t.Fatalf("no consent form in the page:\n%s", body)
	}
	form.Set("decision", decision)
	req, _ := http.NewRequest(http.MethodPost, e.addr+"/oauth/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.base)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// callback checks a redirect to the client and returns its query.
func callback(t *testing.T, resp *http.Response, body string) url.Values {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want a redirect to the client:\n%s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), testRedirect+"?") {
		t.Fatalf("Location %q, want the registered redirect URI", resp.Header.Get("Location"))
	}
	return loc.Query()
}

// authorize runs the authorization request through the consent page and
// returns the code, checking state and iss.
func authorize(t *testing.T, e *env, conf *oauth2.Config, cookies []*http.Cookie, verifier string, grant []string, opts ...oauth2.AuthCodeOption) string {
	t.Helper()
	state := "st-" + oauth2.GenerateVerifier()[:10]
	opts = append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}, opts...)
	resp, body := page(t, e, conf.AuthCodeURL(state, opts...), cookies)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d %s", resp.StatusCode, body)
	}
	r, b := submitConsent(t, e, body, cookies, "allow", grant)
	q := callback(t, r, b)
	if q.Get("state") != state || q.Get("iss") != e.base || q.Get("code") == "" {
		t.Fatalf("callback %v: want the code, state %s and iss %s", q, state, e.base)
	}
	return q.Get("code")
}

// tokenRequest posts a raw form to the token endpoint.
func tokenRequest(t *testing.T, e *env, form url.Values) (int, map[string]any, http.Header) {
	t.Helper()
	resp, err := http.PostForm(e.addr+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m, resp.Header
}

// oauthErrorOf returns the OAuth error code of a failed x/oauth2 call.
func oauthErrorOf(err error) string {
	if re, ok := err.(*oauth2.RetrieveError); ok {
		return re.ErrorCode
	}
	return ""
}
