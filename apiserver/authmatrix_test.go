package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// door is one way into the service.
type door struct {
	name   string
	method string
	path   string
	body   any
	rpc    bool // /mcp: refusals are JSON-RPC errors
	write  bool // an unsafe request: a cookie needs its CSRF token
}

// credential is one way of presenting (or not) who one is.
type credential struct {
	name    string
	header  http.Header
	cookies []*http.Cookie
}

// The auth matrix: every credential kind on every door, the status and
// the body shape each answer has. API doors never answer with HTML, and a
// refusal always says why in the door's error shape.
func TestAuthMatrix(t *testing.T) {
	dev := func(c *apiserver.Config) { c.Environment = "development"; c.DevNoAuth = true }
	prod := newEnv(t, sqliteURL(t), nil)
	devEnv := newEnv(t, sqliteURL(t), dev)
	if _, err := devEnv.app.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	good, _ := prod.key(t, contracts.AllScopes...)
	other, _ := prod.key(t, contracts.AllScopes...)
	expiring, err := prod.app.CreateKey(ctx, testUser, "short", contracts.AllScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	revoked, revokedID := prod.key(t, contracts.AllScopes...)
	if err := prod.app.RevokeKey(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	cookies, csrf := prod.signIn(t, testUser)
	oldCookies, oldCSRF := prod.signIn(t, testUser) // expires when the clock moves below
	var media contracts.MediaUploadIntent
	prod.clock.Advance(31 * 24 * time.Hour) // past the web session lifetime and the short key's expiry
	cookies, csrf = prod.signIn(t, testUser)
	cs := connect(t, prod.base+"/mcp", bearer(good), "")
	call(t, cs, "request_media_upload", map[string]any{"contentType": "image/png", "bytes": 16, "filename": "a.png"}, &media)

	withCSRF := func(_ []*http.Cookie, token string) http.Header {
		return http.Header{"X-Csrf-Token": {token}, "Origin": {prod.base}}
	}
	forged := []*http.Cookie{{Name: cookies[0].Name, Value: "forged-session-token"}, cookies[1]}
	creds := []credential{
		{name: "none"},
		{name: "key good", header: bearer(good)},
		{name: "key good x-api-key", header: http.Header{"X-Api-Key": {good}}},
		{name: "key expired", header: bearer(expiring.Secret)},
		{name: "key revoked", header: bearer(revoked)},
		{name: "key malformed", header: bearer("tbk_not-a-key")},
		{name: "key wrong prefix", header: bearer("sk_" + strings.TrimPrefix(good, contracts.APIKeyPrefix))},
		{name: "key conflicting", header: http.Header{"Authorization": {"Bearer " + good}, "X-Api-Key": {other}}},
		{name: "cookie good", header: withCSRF(cookies, csrf), cookies: cookies},
		{name: "cookie expired", header: withCSRF(oldCookies, oldCSRF), cookies: oldCookies},
		{name: "cookie forged", header: withCSRF(forged, csrf), cookies: forged},
		{name: "cookie wrong CSRF", header: withCSRF(cookies, "wrong-"+csrf), cookies: cookies},
		{name: "upload token", header: http.Header{"Authorization": {media.Headers["Authorization"]}}},
	}
	doors := []door{
		{name: "mcp list", method: http.MethodPost, path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, rpc: true, write: true},
		{name: "mcp read", method: http.MethodPost, path: "/mcp", body: listDecks, rpc: true, write: true},
		{name: "mcp write", method: http.MethodPost, path: "/mcp", body: createDeck, rpc: true, write: true},
		{name: "rest read", method: http.MethodGet, path: "/api/decks"},
		{name: "rest write", method: http.MethodPost, path: "/api/decks", body: map[string]any{"name": "REST"}, write: true},
		{name: "key minting", method: http.MethodPost, path: "/api/keys", body: map[string]any{"name": "k", "scopes": []string{"decks:read"}}, write: true},
		{name: "exposure", method: http.MethodPut, path: "/api/exposure", body: map[string]any{"readOnly": false}, write: true},
		{name: "upload", method: http.MethodPut, path: "/media/" + media.MediaID, body: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", write: true},
	}
	// want gives the status of a credential on a door.
	want := func(c, d string) int {
		refused := strings.HasPrefix(c, "key ") && c != "key good" && c != "key good x-api-key" ||
			c == "cookie expired" || c == "cookie forged" || c == "none"
		switch {
		case c == "upload token" && d == "upload":
			return http.StatusNoContent // the one thing the intent's token opens
		case c == "upload token" || d == "upload":
			return http.StatusUnauthorized // only the intent's own token opens an upload, and nothing else
		case refused:
			return http.StatusUnauthorized
		case strings.HasPrefix(c, "key good"):
			if strings.HasPrefix(d, "mcp") {
				return http.StatusOK
			}
			return http.StatusForbidden // a key is for /mcp only, never a login
		case c == "cookie wrong CSRF":
			if strings.HasPrefix(d, "mcp") || d == "rest read" {
				if d == "rest read" {
					return http.StatusOK
				}
				return http.StatusForbidden
			}
			return http.StatusForbidden
		case c == "cookie good":
			switch d {
			case "rest write", "key minting":
				return http.StatusCreated
			}
			return http.StatusOK
		}
		return -1
	}
	var table strings.Builder
	for _, c := range creds {
		for _, d := range doors {
			h := http.Header{}
			if d.rpc {
				h = http.Header{"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-11-25"}}
			}
			for k, v := range c.header {
				h[k] = v
			}
			if d.path != "/mcp" && d.body != nil {
				if _, ok := d.body.(string); ok {
					h["Content-Type"] = []string{"image/png"}
				}
			}
			if d.name == "upload" && c.name == "upload token" {
				h["Content-Type"] = []string{"image/png"}
			}
			resp, body := prod.request(t, d.method, d.path, d.body, h, c.cookies...)
			fmt.Fprintf(&table, "%-20s %-12s %d\n", c.name, d.name, resp.StatusCode)
			if w := want(c.name, d.name); resp.StatusCode != w {
				t.Errorf("%s on %s: %d %s, want %d", c.name, d.name, resp.StatusCode, body, w)
			}
			checkShape(t, c.name+" on "+d.name, resp, body, d.rpc)
		}
	}
	t.Logf("status by credential and door:\n%s", table.String())

	// Development mode: no credential from this machine is the owner on
	// /mcp; through a proxy it is refused; outside development nothing
	// changes (the "none" row above).
	for _, c := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"dev, loopback", nil, http.StatusOK},
		{"dev, proxied", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, http.StatusUnauthorized},
		{"dev, empty X-Forwarded-For", http.Header{"X-Forwarded-For": {""}}, http.StatusUnauthorized},
		{"dev, bad key", bearer("tbk_wrong_key"), http.StatusUnauthorized},
	} {
		for _, d := range doors[:3] {
			resp, body := devEnv.rpc(t, d.body.(string), c.header)
			if resp.StatusCode != c.status {
				t.Errorf("%s on %s: %d %s, want %d", c.name, d.name, resp.StatusCode, body, c.status)
			}
			checkShape(t, c.name+" on "+d.name, resp, body, true)
		}
	}
}

// checkShape holds the body shape of an API door's answer: JSON, never
// HTML; a refusal is a JSON-RPC error on /mcp and {"error":{kind,message}}
// elsewhere, with a message.
func checkShape(t *testing.T, what string, resp *http.Response, body []byte, rpc bool) {
	t.Helper()
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusAccepted {
		return
	}
	if strings.Contains(ct, "html") || strings.HasPrefix(strings.TrimSpace(string(body)), "<") {
		t.Errorf("%s: HTML on an API door (%s)", what, ct)
		return
	}
	if resp.StatusCode < 400 {
		return
	}
	if rpc {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
			t.Errorf("%s: %d body %s is not a JSON-RPC error", what, resp.StatusCode, body)
		}
		return
	}
	var m struct {
		Error *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Error == nil || m.Error.Kind == "" || m.Error.Message == "" {
		t.Errorf("%s: %d body %s is not a JSON error", what, resp.StatusCode, body)
	}
}
