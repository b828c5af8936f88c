package apiserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
)

// postForm posts an HTML form (urlencoded) with the cookies and returns
// the response without following redirects.
func (e *env) postForm(t *testing.T, path string, form url.Values, header http.Header, cookies ...*http.Cookie) (*http.Response, []byte) {
	t.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for k, v := range header {
		h[k] = v
	}
	return e.request(t, http.MethodPost, path, form.Encode(), h, cookies...)
}

// A form without JavaScript carries the CSRF token in a hidden field: the
// session's token is accepted there, a forged or missing one is not, and a
// foreign Origin is refused whatever the field says.
func TestCSRFFormField(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	var session *http.Cookie
	for _, c := range cookies {
		if c.Name == "tb_session" {
			session = c
		}
	}
	for name, c := range map[string]struct {
		form   url.Values
		header http.Header
	}{
		"no field":     {url.Values{}, nil},
		"forged field": {url.Values{auth.CSRFField: {"forged"}}, nil},
		"other origin": {url.Values{auth.CSRFField: {csrf}}, http.Header{"Origin": {"https://evil.example"}}},
	} {
		if resp, body := e.postForm(t, "/logout", c.form, c.header, session); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: POST /logout %d %s, want 403", name, resp.StatusCode, body)
		}
	}
	resp, body := e.postForm(t, "/logout", url.Values{auth.CSRFField: {csrf}}, http.Header{"Origin": {e.base}}, session)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-out form: %d %q %s, want 303 to /", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, _ := e.request(t, http.MethodGet, "/api/decks", nil, nil, session); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the session still works after sign-out: %d", resp.StatusCode)
	}
}

// The setup page is served in the layout with the strict page headers,
// and its stylesheet comes from our origin.
func TestConnectPageInLayout(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	resp, body := e.request(t, http.MethodGet, "/connect", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/connect: %d", resp.StatusCode)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	page := string(body)
	if strings.Contains(page, "<style") || strings.Contains(page, "style=") {
		t.Errorf("inline style on /connect")
	}
	i := strings.Index(page, `href="/static/app.css?v=`)
	if i < 0 {
		t.Fatalf("no stylesheet link in /connect")
	}
	href := page[i+6 : i+6+strings.IndexByte(page[i+6:], '"')]
	resp, css := e.request(t, http.MethodGet, href, nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !strings.Contains(string(css), "prefers-color-scheme: dark") {
		t.Errorf("%s: %d %q", href, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
