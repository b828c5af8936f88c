package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/contracts"
)

// A client that knows only <base>/mcp discovers, registers, has the person
// consent to fewer scopes than asked, exchanges the code, calls tools with
// the SDK client (audit rows name it), steps up on a scope it lacks,
// rotates its refresh token, and stops working once disconnected in
// Settings → Connected apps.
func TestOAuthRegisteredClientFlow(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		d := discover(t, e, "/mcp")
		if d.resource != e.base+"/mcp" {
			t.Fatalf("resource %q, want %s/mcp", d.resource, e.base)
		}
		for k, want := range map[string]any{
			"code_challenge_methods_supported":               []any{"S256"},
			"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported":          []any{"none"},
			"client_id_metadata_document_supported":          true,
			"authorization_response_iss_parameter_supported": true,
			"registration_endpoint":                          e.base + "/oauth/register",
			"revocation_endpoint":                            e.base + "/oauth/revoke",
		} {
			got, _ := json.Marshal(d.as[k])
			w, _ := json.Marshal(want)
			if string(got) != string(w) {
				t.Errorf("AS metadata %s = %s, want %s", k, got, w)
			}
		}

		status, reg := register(t, e, `{"client_name":"Test Assistant","client_uri":"https://assistant.example","redirect_uris":["`+testRedirect+`"],
			"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"jwks":{"keys":[]}}`)
		if status != http.StatusCreated || reg["client_id"] == "" {
			t.Fatalf("registration: %d %v", status, reg)
		}
		clientID := reg["client_id"].(string)
		conf := oauthConfig(e, d, clientID, "decks:read", "decks:write", "media:write")
		cookies, _ := e.signIn(t, testUser)

		// The consent page names the client and its domain and says the scopes in words.
		verifier := oauth2.GenerateVerifier()
		resp, body := page(t, e, conf.AuthCodeURL("s1", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource)), cookies)
		for _, want := range []string{"Test Assistant", "assistant.example", "Not checked: it says it comes from", "Create, change and delete your decks and cards", "Upload pictures"} {
			if !strings.Contains(body, want) {
				t.Errorf("the consent page does not say %q", want)
			}
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Error("the authorization endpoint answers CORS")
		}
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("consent page headers: CSP %q, Cache-Control %q", resp.Header.Get("Content-Security-Policy"), resp.Header.Get("Cache-Control"))
		}
		// Grant fewer: no media uploads.
		r, b := submitConsent(t, e, body, cookies, "allow", []string{"decks:read", "decks:write"})
		q := callback(t, r, b)
		if q.Get("state") != "s1" || q.Get("iss") != e.base {
			t.Fatalf("callback %v", q)
		}
		ctx := ctxFor(e)
		tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		if tok.Extra("scope") != "decks:read decks:write" || tok.RefreshToken == "" || time.Until(tok.Expiry) < 50*time.Minute {
			t.Fatalf("token: scope %v, refresh %v, expiry %v", tok.Extra("scope"), tok.RefreshToken != "", tok.Expiry)
		}

		// The official SDK client calls tools with the token.
		cs := connect(t, e.base+"/mcp", bearer(tok.AccessToken), "")
		var deck struct {
			ID string `json:"id"`
		}
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "OAuth deck"}, &deck)
		if deck.ID == "" {
			t.Fatal("create_deck returned no id")
		}
		// Audit rows name the client.
		aresp, abody := e.request(t, http.MethodGet, "/api/audit?tool=create_deck", nil, nil, cookies...)
		if aresp.StatusCode != http.StatusOK || !strings.Contains(string(abody), `"credentialKind":"oauth"`) || !strings.Contains(string(abody), `"credentialId":"`+clientID+`"`) {
			t.Errorf("audit rows do not name the OAuth client: %d %s", aresp.StatusCode, abody)
		}

		// A tool outside the granted scopes: 403 insufficient_scope, the step-up challenge.
		hresp, hbody := e.rpc(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"request_media_upload","arguments":{"filename":"a.png","contentType":"image/png","sizeBytes":10}}}`, bearer(tok.AccessToken))
		wa := hresp.Header.Get("WWW-Authenticate")
		if hresp.StatusCode != http.StatusForbidden || !strings.Contains(wa, `error="insufficient_scope"`) || !strings.Contains(wa, "media:write") ||
			!strings.Contains(wa, `resource_metadata="`+e.base+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("out-of-scope call: %d %q %s", hresp.StatusCode, wa, hbody)
		}

		// Refresh rotates; narrowing is allowed.
		old := *tok
		tok.Expiry = time.Now().Add(-time.Minute)
		fresh, err := conf.TokenSource(ctx, tok).Token()
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		if fresh.AccessToken == old.AccessToken || fresh.RefreshToken == old.RefreshToken {
			t.Fatal("refresh did not rotate the tokens")
		}
		cs2 := connect(t, e.base+"/mcp", bearer(fresh.AccessToken), "")
		if names := toolNames(t, cs2); !slices.Contains(names, contracts.ToolListDecks) {
			t.Errorf("tools after refresh: %v", names)
		}

		// Settings → Connected apps lists the grant and disconnects it.
		aresp2, apps := page(t, e, e.base+"/settings/connected-apps", cookies)
		if aresp2.StatusCode != http.StatusOK || !strings.Contains(apps, "Test Assistant") || !strings.Contains(apps, "See your decks and cards") {
			t.Fatalf("connected apps: %d\n%s", aresp2.StatusCode, apps)
		}
		if n := strings.Count(apps, `name="grant"`); n != 2 { // its Disconnect and Trust forms
			t.Fatalf("connected apps lists %d grants, want 1", n)
		}
		disconnect(t, e, apps, cookies)
		if resp, _ := e.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, bearer(fresh.AccessToken)); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a disconnected app's token: %d, want 401", resp.StatusCode)
		}
		if _, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken, Expiry: time.Now().Add(-time.Minute)}).Token(); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("a disconnected app's refresh: %v, want invalid_grant", err)
		}
		_, apps = page(t, e, e.base+"/settings/connected-apps", cookies)
		if strings.Contains(apps, "Test Assistant") {
			t.Error("the disconnected app is still listed")
		}
	})
}

// disconnect posts the first Disconnect form of the Connected apps page.
func disconnect(t *testing.T, e *env, apps string, cookies []*http.Cookie) {
	t.Helper()
	form := map[string]string{}
	for _, m := range inputRE.FindAllStringSubmatch(apps, -1) {
		if _, ok := form[m[2]]; !ok {
			form[m[2]] = m[3]
		}
	}
	body := "csrf_token=" + form["csrf_token"] + "&grant=" + form["grant"]
	req, _ := http.NewRequest(http.MethodPost, e.addr+"/settings/connected-apps", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.base)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disconnect: %d", resp.StatusCode)
	}
}
