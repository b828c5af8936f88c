package apiserver_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
)

// Pages check Host as /mcp, /signin and the API do: with a valid session,
// a foreign Host gets 421 on every page, safe or not, before the page acts
// (issue 30, item 9: `/` answered 200 and /decks, /audit 303).
func TestPagesCheckHost(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	before, _ := e.app.AuditTrail(t.Context(), testUser, 0)
	foreign := http.Header{"Host": {"evil.example"}}
	for _, path := range []string{"/", "/decks", "/audit", "/stats", "/settings", "/settings/keys", "/settings/data",
		"/settings/agents", "/settings/trash", "/import", "/cards", "/decks/nope", "/study/nope", "/connect", "/static/app.css"} {
		if resp, body := e.request(t, http.MethodGet, path, nil, foreign, cookies...); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("GET %s with Host evil.example: %d %.80s, want 421", path, resp.StatusCode, body)
		}
	}
	form := url.Values{auth.CSRFField: {csrf}, "name": {"Hijacked"}}.Encode()
	h := http.Header{"Host": {"evil.example"}, "Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {e.base}}
	for _, path := range []string{"/decks", "/settings/keys", "/settings/day"} {
		if resp, _ := e.request(t, http.MethodPost, path, form, h, cookies...); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("POST %s with Host evil.example: %d, want 421", path, resp.StatusCode)
		}
	}
	if after, _ := e.app.AuditTrail(t.Context(), testUser, 0); len(after) != len(before) {
		t.Errorf("refused page posts wrote %d audit rows", len(after)-len(before))
	}
	// Our own host still serves the pages.
	if resp, _ := e.request(t, http.MethodGet, "/decks", nil, nil, cookies...); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /decks on our host: %d", resp.StatusCode)
	}
}
