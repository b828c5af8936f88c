package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

const listDecks = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_decks","arguments":{}}}`
const createDeck = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":"Dev deck"}}}`

// In development mode a request without a credential acts as the owner
// with every scope; a bad credential still fails; outside development the
// flag does nothing.
func TestDevelopmentMode(t *testing.T) {
	dev := func(c *apiserver.Config) { c.Environment = "development"; c.DevNoAuth = true }
	e := newEnv(t, sqliteURL(t), dev)
	owner, err := e.app.Bootstrap(context.Background())
	if err != nil || !owner.Created || owner.User.Email != "owner@localhost" || !strings.HasPrefix(owner.Key, contracts.APIKeyPrefix) {
		t.Fatalf("Bootstrap = %+v, %v; want a new owner@localhost with a key", owner, err)
	}
	if again, err := e.app.Bootstrap(context.Background()); err != nil || again.Key != "" || again.Created {
		t.Fatalf("second Bootstrap = %+v, %v; want no new account and no new key", again, err)
	}

	cs := connect(t, e.base+"/mcp", nil, "")
	if got := sorted(toolNames(t, cs)); !slices.Equal(got, catalogNames()) {
		t.Errorf("dev mode lists %v, want all %v", got, catalogNames())
	}
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Owned"}, &deck)
	events, err := e.app.AuditTrail(context.Background(), "owner@localhost", 0)
	if err != nil || len(events) != 1 || events[0].CredentialKind != contracts.CredentialDev || events[0].UserID != owner.User.ID {
		t.Fatalf("owner's audit = %+v, %v; want one dev row", events, err)
	}
	if resp, body := e.request(t, http.MethodGet, "/api/decks", nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), deck.ID) {
		t.Errorf("GET /api/decks without credential: %d %s", resp.StatusCode, body)
	}
	// Ambient requests from another site are refused even in development.
	if resp, body := e.rpc(t, createDeck, http.Header{"Origin": {"https://evil.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin dev POST: %d %s, want 403", resp.StatusCode, body)
	}
	if resp, body := e.request(t, http.MethodPost, "/api/decks", map[string]any{"name": "x"}, http.Header{"Sec-Fetch-Site": {"cross-site"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site dev POST /api/decks: %d %s, want 403", resp.StatusCode, body)
	}

	resp, body := e.rpc(t, listDecks, bearer("tbk_wrong_key"))
	checkRefusal(t, e, resp, body, true)
	resp, body = e.request(t, http.MethodGet, "/api/decks", nil, http.Header{"X-Api-Key": {"nope"}})
	checkRefusal(t, e, resp, body, false)
	// A key header presented empty is a bad credential, not "none".
	resp, body = e.request(t, http.MethodGet, "/api/decks", nil, http.Header{"X-Api-Key": {""}})
	checkRefusal(t, e, resp, body, false)
	// Credential-free owner access is for this machine only: a request
	// that came through a proxy is refused.
	resp, body = e.rpc(t, listDecks, http.Header{"X-Forwarded-For": {"203.0.113.9"}})
	checkRefusal(t, e, resp, body, true)

	// MCP_DEV_USER_EMAIL picks another account.
	alt := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { dev(c); c.DevUserEmail = testUser })
	resp, body = alt.rpc(t, createDeck, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("dev user %s: %d %s", testUser, resp.StatusCode, body)
	}
	if ev, _ := alt.app.AuditTrail(context.Background(), testUser, 0); len(ev) != 1 {
		t.Errorf("MCP_DEV_USER_EMAIL's account has %d audit rows, want 1", len(ev))
	}

	for _, envName := range []string{"production", "staging", ""} {
		prod := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.Environment = envName; c.DevNoAuth = true })
		if _, _, err := prod.app.EnsureUser(context.Background(), "owner@localhost", ""); err != nil {
			t.Fatal(err)
		}
		resp, body := prod.rpc(t, listDecks, nil)
		checkRefusal(t, prod, resp, body, true)
	}
}

// A key is never a login: it cannot open a web session, mint, list or
// revoke keys, or change exposure settings, through HTTP or the domain.
func TestKeyIsNeverALogin(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, keyID := e.key(t, contracts.AllScopes...)
		h := bearer(key)

		resp, _ := e.request(t, http.MethodGet, "/login", nil, h)
		if resp.StatusCode == http.StatusSeeOther || len(resp.Cookies()) != 0 {
			t.Errorf("GET /login with a key: %d, cookies %v", resp.StatusCode, resp.Cookies())
		}
		resp, _ = e.request(t, http.MethodGet, "/login?token="+key, nil, h)
		if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
			t.Errorf("GET /login?token=<key>: %d, cookies %v", resp.StatusCode, resp.Cookies())
		}
		for _, rq := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPost, "/api/keys", map[string]any{"name": "more", "scopes": []string{"decks:read"}}},
			{http.MethodGet, "/api/keys", nil},
			{http.MethodDelete, "/api/keys/" + keyID, nil},
			{http.MethodPut, "/api/exposure", map[string]any{"readOnly": true}},
		} {
			resp, body := e.request(t, rq.method, rq.path, rq.body, h)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"kind":"forbidden"`) {
				t.Errorf("%s %s with a key: %d %s, want 403 forbidden", rq.method, rq.path, resp.StatusCode, body)
			}
		}
		if resp, body := e.rpc(t, listDecks, h); resp.StatusCode != http.StatusOK {
			t.Fatalf("the key stopped working: %d %s", resp.StatusCode, body)
		}

		// The domain itself refuses a key principal.
		svcCtx := contracts.WithPrincipal(context.Background(), contracts.Principal{
			UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: keyID,
		})
		keys, exposure := e.app.Services().Keys, e.app.Services().Exposure
		if _, err := keys.CreateKey(svcCtx, "x", []contracts.Scope{contracts.ScopeDecksRead}, 0); !contracts.IsKind(err, contracts.KindForbidden) {
			t.Errorf("domain CreateKey with a key principal: %v, want forbidden", err)
		}
		if err := keys.RevokeKey(svcCtx, keyID); !contracts.IsKind(err, contracts.KindForbidden) {
			t.Errorf("domain RevokeKey with a key principal: %v, want forbidden", err)
		}
		if _, err := exposure.SetExposure(svcCtx, contracts.ExposureSettings{ReadOnly: true}); !contracts.IsKind(err, contracts.KindForbidden) {
			t.Errorf("domain SetExposure with a key principal: %v, want forbidden", err)
		}
	})
}

func userID(t *testing.T, e *env) string {
	t.Helper()
	u, _, err := e.app.EnsureUser(context.Background(), testUser, "")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// Unsafe requests carried by the session cookie need the double-submit
// CSRF token and, when the browser names one, our own origin: on /api and
// on /mcp.
func TestCSRF(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	var session, csrfCookie *http.Cookie
	for _, c := range cookies {
		switch c.Name {
		case "tb_session":
			session = c
		case auth.CSRFCookie:
			csrfCookie = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.Secure {
		t.Fatalf("session cookie on plain-http loopback = %+v, want tb_session HttpOnly SameSite=Lax Path=/ without Secure", session)
	}
	if csrfCookie.HttpOnly || csrfCookie.Value != csrf {
		t.Fatalf("csrf cookie = %+v, want readable", csrfCookie)
	}

	deck := map[string]any{"name": "Web deck"}
	good := http.Header{auth.CSRFHeader: {csrf}}
	if resp, body := e.request(t, http.MethodGet, "/api/decks", nil, nil, cookies...); resp.StatusCode != http.StatusOK {
		t.Fatalf("safe GET with the cookie: %d %s", resp.StatusCode, body)
	}
	refused := map[string]struct {
		h       http.Header
		cookies []*http.Cookie
	}{
		"no token":         {nil, cookies},
		"wrong token":      {http.Header{auth.CSRFHeader: {"forged"}}, cookies},
		"token, no cookie": {good, []*http.Cookie{session}},
		"other origin":     {http.Header{auth.CSRFHeader: {csrf}, "Origin": {"https://evil.example"}}, cookies},
		"cross-site fetch": {http.Header{auth.CSRFHeader: {csrf}, "Sec-Fetch-Site": {"cross-site"}}, cookies},
		"both forged":      {http.Header{auth.CSRFHeader: {"forged"}}, []*http.Cookie{session, {Name: auth.CSRFCookie, Value: "forged"}}},
	}
	for name, c := range refused {
		resp, body := e.request(t, http.MethodPost, "/api/decks", deck, c.h, c.cookies...)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"kind":"forbidden"`) {
			t.Errorf("%s: POST /api/decks %d %s, want 403 JSON", name, resp.StatusCode, body)
		}
		resp, body = e.rpc(t, createDeck, c.h, c.cookies...)
		var m struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if resp.StatusCode != http.StatusForbidden || json.Unmarshal(body, &m) != nil || m.JSONRPC != "2.0" {
			t.Errorf("%s: POST /mcp %d %s, want 403 JSON-RPC", name, resp.StatusCode, body)
		}
	}
	sameOrigin := http.Header{auth.CSRFHeader: {csrf}, "Origin": {e.base}}
	if resp, body := e.request(t, http.MethodPost, "/api/decks", deck, sameOrigin, cookies...); resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/decks with the token: %d %s", resp.StatusCode, body)
	}
	if resp, body := e.rpc(t, listDecks, good, cookies...); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Web deck") {
		t.Fatalf("POST /mcp with the cookie and token: %d %s", resp.StatusCode, body)
	}

	// Sign-out needs the token too, then the cookie stops working.
	if resp, _ := e.request(t, http.MethodPost, "/logout", nil, nil, cookies...); resp.StatusCode != http.StatusForbidden {
		t.Errorf("logout without token: %d, want 403", resp.StatusCode)
	}
	if resp, _ := e.request(t, http.MethodPost, "/logout", nil, good, cookies...); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("logout: %d, want 204", resp.StatusCode)
	}
	resp, body := e.request(t, http.MethodGet, "/api/decks", nil, nil, cookies...)
	checkRefusal(t, e, resp, body, false)
}

// Outside plain-http loopback the session cookie is __Host- and Secure.
func TestSecureCookieOutsideLoopback(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.BaseURL = "https://takhtabush.example" })
	link, _, err := e.app.LoginLink(context.Background(), testUser)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := e.request(t, http.MethodPost, "/login", url.Values{"token": {u.Query().Get("token")}}.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {"https://takhtabush.example"}})
	var names []string
	for _, c := range resp.Cookies() {
		names = append(names, c.Name)
		if !c.Secure || c.Path != "/" || c.Domain != "" {
			t.Errorf("cookie %+v, want Secure, Path=/, no Domain", c)
		}
	}
	if strings.Join(names, ",") != "__Host-tb_session,tb_csrf" {
		t.Errorf("cookies %v, want __Host-tb_session and tb_csrf", names)
	}
}
