package apiserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// The account's data download hands everything out and writes a security
// event, so it is a form POST with our origin and the CSRF token; a GET
// (a cross-site top-level navigation, an <img>) only goes back to the data
// page and does nothing (issue 30, item 11: the GET streamed the zip).
func TestDataExportNeedsAPost(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	exports := func() int {
		t.Helper()
		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range events {
			if ev.Tool == contracts.AuditExportAccount {
				n++
			}
		}
		return n
	}
	resp, body := e.request(t, http.MethodGet, "/settings/data/export", nil, http.Header{"Sec-Fetch-Site": {"cross-site"}}, cookies...)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings/data" || len(body) > 200 {
		t.Errorf("GET: %d Location %q, %d bytes; want 303 to /settings/data", resp.StatusCode, resp.Header.Get("Location"), len(body))
	}
	for name, c := range map[string]struct {
		form   url.Values
		origin string
	}{
		"no CSRF token":    {url.Values{}, e.base},
		"a foreign origin": {url.Values{"csrf_token": {csrf}}, "https://evil.example"},
	} {
		if resp, _ := e.request(t, http.MethodPost, "/settings/data/export", c.form.Encode(), form(c.origin), cookies...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST with %s: %d, want 403", name, resp.StatusCode)
		}
	}
	if n := exports(); n != 0 {
		t.Fatalf("%d exports recorded before the real POST", n)
	}
	resp, body = e.request(t, http.MethodPost, "/settings/data/export", url.Values{"csrf_token": {csrf}}.Encode(), form(e.base), cookies...)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" || len(body) < 100 {
		t.Fatalf("POST: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	if n := exports(); n != 1 {
		t.Errorf("%d exports recorded, want the POST's one", n)
	}
	// The data page offers the download as that form.
	_, page := e.request(t, http.MethodGet, "/settings/data", nil, nil, cookies...)
	if !strings.Contains(string(page), `<form method="post" action="/settings/data/export">`) || !strings.Contains(string(page), `name="csrf_token" value="`+csrf+`"`) {
		t.Errorf("the data page has no POST form for the download")
	}
}
