package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// A request refused for its Host (421), its Origin or its CSRF token (403)
// is refused before it acts for anyone: it gets its door's error body, and
// its access log line names no user, even when it carried a valid key or
// session.
func TestRefusedRequestsActForNoOne(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cookies, csrf := e.signIn(t, testUser)
	before, _ := e.app.AuditTrail(t.Context(), testUser, 0) // the sign-in's own event
	deck := map[string]any{"name": "x"}
	cases := []struct {
		name    string
		mcp     bool
		path    string
		header  http.Header
		cookies bool
		status  int
	}{
		{"mcp foreign host", true, "/mcp", http.Header{"Host": {"evil.example"}}, false, http.StatusMisdirectedRequest},
		{"mcp foreign origin", true, "/mcp", http.Header{"Origin": {"https://evil.example"}}, false, http.StatusForbidden},
		{"api foreign host", false, "/api/decks", http.Header{"Host": {"evil.example"}}, false, http.StatusMisdirectedRequest},
		{"api missing CSRF token", false, "/api/decks", http.Header{}, true, http.StatusForbidden},
		{"api foreign origin", false, "/api/decks", http.Header{auth.CSRFHeader: {csrf}, "Origin": {"https://evil.example"}}, true, http.StatusForbidden},
	}
	for i, c := range cases {
		id := "refused-" + string(rune('a'+i))
		h := c.header.Clone()
		h.Set("X-Request-Id", id)
		var cs []*http.Cookie
		if c.cookies {
			cs = cookies
		} else {
			h.Set("Authorization", "Bearer "+key)
		}
		var resp *http.Response
		var body []byte
		if c.mcp {
			resp, body = e.rpc(t, createDeck, h, cs...)
		} else {
			resp, body = e.request(t, http.MethodPost, c.path, deck, h, cs...)
		}
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.status)
			continue
		}
		var b struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Kind string `json:"kind"`
				Data struct {
					Kind string `json:"kind"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Errorf("%s: body %s: %v", c.name, body, err)
		}
		if kind := map[bool]string{true: b.Error.Data.Kind, false: b.Error.Kind}[c.mcp]; kind != "forbidden" || (b.JSONRPC == "2.0") != c.mcp {
			t.Errorf("%s: body %s is not the door's forbidden error", c.name, body)
		}
		line := accessLine(t, e, id)
		if strings.Contains(line, "user_id") || strings.Contains(line, "credential") {
			t.Errorf("%s: the access log line names who sent it: %s", c.name, line)
		}
	}
	if n, _ := e.app.AuditTrail(t.Context(), testUser, 0); len(n) != len(before) {
		t.Errorf("refused requests wrote %d audit rows", len(n)-len(before))
	}
}

// accessLine returns the access log line of the request with id.
func accessLine(t *testing.T, e *env, id string) string {
	t.Helper()
	for _, line := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, `"request_id":"`+id+`"`) {
			return line
		}
	}
	t.Fatalf("no access log line for request %s", id)
	return ""
}
