package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/apiserver"
)

// oauthFixture is a running service with a registered client and a
// signed-in person.
type oauthFixture struct {
	e       *env
	d       discovered
	conf    *oauth2.Config
	cookies []*http.Cookie
	ctx     context.Context
}

const mcpHost = "mcp.tb.test"

func newOAuthFixture(t *testing.T) *oauthFixture {
	t.Helper()
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.MCPHost = mcpHost })
	d := discover(t, e, "/mcp")
	status, reg := register(t, e, `{"client_name":"Refusal Tester","redirect_uris":["`+testRedirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	cookies, _ := e.signIn(t, testUser)
	return &oauthFixture{e: e, d: d, conf: oauthConfig(e, d, reg["client_id"].(string)), cookies: cookies, ctx: ctxFor(e)}
}

// tokens runs a whole authorization and returns the tokens.
func (f *oauthFixture) tokens(t *testing.T, opts ...oauth2.AuthCodeOption) *oauth2.Token {
	t.Helper()
	v := oauth2.GenerateVerifier()
	code := authorize(t, f.e, f.conf, f.cookies, v, nil, opts...)
	tok, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok
}

// other registers a second client and returns its id.
func (f *oauthFixture) other(t *testing.T) string {
	t.Helper()
	status, reg := register(t, f.e, `{"client_name":"Another App","redirect_uris":["`+testRedirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	return reg["client_id"].(string)
}

// works reports whether an access token is accepted on the MCP path.
func (f *oauthFixture) works(t *testing.T, token, path, host string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.e.addr+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+token)
	if host != "" {
		req.Host = host
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusUnauthorized:
		if !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("401 without error=\"invalid_token\": %q", resp.Header.Get("WWW-Authenticate"))
		}
		return false
	}
	t.Fatalf("POST %s: %d", path, resp.StatusCode)
	return false
}

// authorizeError sends an authorization request and returns the error the
// client's redirect carries.
func (f *oauthFixture) authorizeError(t *testing.T, q url.Values) url.Values {
	t.Helper()
	resp, body := page(t, f.e, f.e.base+"/oauth/authorize?"+q.Encode(), f.cookies)
	return callback(t, resp, body)
}

// baseQuery is a valid authorization request.
func (f *oauthFixture) baseQuery() url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {f.conf.ClientID}, "redirect_uri": {testRedirect}, "state": {"xyz"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "code_challenge_method": {"S256"},
	}
}

func TestOAuthRefusals(t *testing.T) {
	f := newOAuthFixture(t)
	e := f.e

	status, reg := register(t, e, `{"client_name":"Narrow","scope":"decks:read","redirect_uris":["`+testRedirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	narrow := oauthConfig(e, f.d, reg["client_id"].(string))
	narrow.Scopes = []string{"decks:read"}
	// Every error CheckAuthorize can send back to a registered redirect URI.
	authorizeErrors := map[string]struct {
		change func(url.Values)
		code   string
	}{
		"missing PKCE":        {func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		"plain PKCE":          {func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request"},
		"challenge garbage":   {func(q url.Values) { q.Set("code_challenge", "short") }, "invalid_request"},
		"wrong resource":      {func(q url.Values) { q.Set("resource", "https://evil.example/mcp") }, "invalid_target"},
		"two resources":       {func(q url.Values) { q["resource"] = []string{e.base + "/mcp", "https://" + mcpHost + "/"} }, "invalid_target"},
		"unknown scope":       {func(q url.Values) { q.Set("scope", "decks:read admin") }, "invalid_scope"},
		"scope not a list":    {func(q url.Values) { q.Set("scope", "decks:read,decks:write") }, "invalid_scope"},
		"beyond the client's": {func(q url.Values) { q.Set("client_id", narrow.ClientID); q.Set("scope", "decks:write") }, "invalid_scope"},
		"token flow":          {func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
		"no response type":    {func(q url.Values) { q.Del("response_type") }, "unsupported_response_type"},
		"response_type=x":     {func(q url.Values) { q.Set("response_type", "x") }, "unsupported_response_type"},
		"only client and bad": {func(q url.Values) { q.Del("redirect_uri"); q.Del("state"); q.Set("response_type", "x") }, "unsupported_response_type"},
	}
	// ownPage fails unless the answer is our own 400 page, not a redirect.
	ownPage := func(t *testing.T, resp *http.Response, body string) {
		t.Helper()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.Contains(body, "<h1>") {
			t.Errorf("%d Location %q, want our own 400 page", resp.StatusCode, resp.Header.Get("Location"))
		}
	}

	t.Run("authorization request errors are our page until the person has trusted the client", func(t *testing.T) {
		for name, c := range authorizeErrors {
			q := f.baseQuery()
			c.change(q)
			resp, body := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), f.cookies)
			ownPage(t, resp, body)
			resp, body = page(t, e, e.base+"/oauth/authorize?"+q.Encode(), nil) // not signed in
			ownPage(t, resp, body)
			if t.Failed() {
				t.Fatalf("%s: redirected to a client the person never trusted", name)
			}
		}
	})

	t.Run("a freshly registered client cannot use us as an open redirector", func(t *testing.T) {
		status, reg := register(t, e, `{"client_name":"Phish","redirect_uris":["https://evil.example/phish"]}`)
		if status != http.StatusCreated {
			t.Fatalf("registration: %d %v", status, reg)
		}
		for _, cookies := range [][]*http.Cookie{nil, f.cookies} {
			resp, body := page(t, e, e.base+"/oauth/authorize?client_id="+reg["client_id"].(string)+"&response_type=x", cookies)
			ownPage(t, resp, body)
		}
	})

	t.Run("an error after the consent page goes back to the client", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		_, body := page(t, e, f.conf.AuthCodeURL("p1", oauth2.S256ChallengeOption(v)), f.cookies)
		tampered := strings.Replace(body, `name="code_challenge_method" value="S256"`, `name="code_challenge_method" value="plain"`, 1)
		if tampered == body {
			t.Fatal("the consent page has no code_challenge_method field")
		}
		r, b := submitConsent(t, e, tampered, f.cookies, "allow", nil)
		got := callback(t, r, b)
		if got.Get("error") != "invalid_request" || got.Get("state") != "p1" || got.Get("iss") != e.base || got.Get("code") != "" {
			t.Errorf("callback %v, want error=invalid_request with state and iss and no code", got)
		}
		// The same form without a session has seen no consent page.
		r, b = submitConsent(t, e, tampered, nil, "allow", nil)
		ownPage(t, r, b)
	})

	t.Run("once the person has granted the client, errors go back to it", func(t *testing.T) {
		f.tokens(t)
		v := oauth2.GenerateVerifier()
		if _, err := narrow.Exchange(f.ctx, authorize(t, e, narrow, f.cookies, v, nil), oauth2.VerifierOption(v)); err != nil {
			t.Fatal(err)
		}
		for name, c := range authorizeErrors {
			t.Run(name, func(t *testing.T) {
				q := f.baseQuery()
				c.change(q)
				got := f.authorizeError(t, q)
				state := "xyz"
				if q.Get("state") == "" {
					state = ""
				}
				if got.Get("error") != c.code || got.Get("state") != state || got.Get("iss") != e.base || got.Get("code") != "" {
					t.Errorf("callback %v, want error=%s with state and iss and no code", got, c.code)
				}
			})
		}
		// Not signed in, nobody has granted anything.
		q := f.baseQuery()
		q.Set("response_type", "token")
		resp, body := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), nil)
		ownPage(t, resp, body)
	})

	t.Run("untrusted client or redirect is shown on a page, never redirected", func(t *testing.T) {
		cases := map[string]func(url.Values){
			"unknown client":    func(q url.Values) { q.Set("client_id", "tbc_nobody") },
			"wrong redirect":    func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") },
			"extra redirect":    func(q url.Values) { q.Set("redirect_uri", testRedirect+"?x=1") },
			"redirect prefix":   func(q url.Values) { q.Set("redirect_uri", testRedirect+"/more") },
			"other port":        func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:7778/callback") },
			"repeated state":    func(q url.Values) { q.Add("state", "again") },
			"no client at all":  func(q url.Values) { q.Del("client_id") },
			"private doc host":  func(q url.Values) { q.Set("client_id", "https://127.0.0.1/client.json") },
			"document not JSON": func(q url.Values) { q.Set("client_id", "https://localhost/") },
		}
		for name, change := range cases {
			t.Run(name, func(t *testing.T) {
				q := f.baseQuery()
				change(q)
				resp, body := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), f.cookies)
				if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" || !strings.Contains(body, "<h1>") {
					t.Errorf("%d Location %q, want a 400 page", resp.StatusCode, resp.Header.Get("Location"))
				}
			})
		}
	})

	t.Run("not signed in: sent to sign in and back", func(t *testing.T) {
		q := f.baseQuery()
		resp, _ := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), nil)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc == nil || loc.Path != "/signin" || !strings.HasPrefix(loc.Query().Get("next"), "/oauth/authorize?") {
			t.Fatalf("%d Location %q, want /signin?next=/oauth/authorize?…", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	t.Run("deny", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		resp, body := page(t, e, f.conf.AuthCodeURL("d1", oauth2.S256ChallengeOption(v)), f.cookies)
		if resp.StatusCode != http.StatusOK {
			t.Fatal(resp.StatusCode)
		}
		r, b := submitConsent(t, e, body, f.cookies, "deny", nil)
		q := callback(t, r, b)
		if q.Get("error") != "access_denied" || q.Get("state") != "d1" || q.Get("code") != "" {
			t.Errorf("deny: %v", q)
		}
	})

	t.Run("consent form without the CSRF token or from another site", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		_, body := page(t, e, f.conf.AuthCodeURL("c1", oauth2.S256ChallengeOption(v)), f.cookies)
		forged := strings.ReplaceAll(body, `name="csrf_token" value="`, `name="csrf_token" value="x`)
		if r, _ := submitConsent(t, e, forged, f.cookies, "allow", nil); r.StatusCode != http.StatusForbidden {
			t.Errorf("wrong CSRF token: %d, want 403", r.StatusCode)
		}
	})

	t.Run("granting nothing or more than asked", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		conf := *f.conf
		conf.Scopes = []string{"decks:read"}
		_, body := page(t, e, conf.AuthCodeURL("g1", oauth2.S256ChallengeOption(v)), f.cookies)
		if r, b := submitConsent(t, e, body, f.cookies, "allow", []string{}); r.StatusCode != http.StatusBadRequest || !strings.Contains(b, "at least one") {
			t.Errorf("granting nothing: %d", r.StatusCode)
		}
		wider := strings.Replace(body, `value="decks:read" checked>`, `value="decks:read" checked><input type="checkbox" name="grant" value="decks:write" checked>`, 1)
		if r, _ := submitConsent(t, e, wider, f.cookies, "allow", nil); r.StatusCode != http.StatusBadRequest {
			t.Errorf("granting more than asked: %d, want 400", r.StatusCode)
		}
	})

	t.Run("wrong verifier, and the code is spent", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		code := authorize(t, e, f.conf, f.cookies, v, nil)
		if _, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("wrong verifier: %v, want invalid_grant", err)
		}
		if _, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v)); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("the right verifier after a wrong one: %v, want invalid_grant", err)
		}
	})

	t.Run("no verifier", func(t *testing.T) {
		code := authorize(t, e, f.conf, f.cookies, oauth2.GenerateVerifier(), nil)
		if _, err := f.conf.Exchange(f.ctx, code); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("no verifier: %v, want invalid_grant", err)
		}
	})

	t.Run("token request with another redirect, resource or client", func(t *testing.T) {
		for name, change := range map[string]func(url.Values){
			"redirect": func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:7777/other") },
			"resource": func(q url.Values) { q.Set("resource", "https://"+mcpHost+"/") },
			"client":   func(q url.Values) { q.Set("client_id", f.other(t)) },
		} {
			v := oauth2.GenerateVerifier()
			code := authorize(t, e, f.conf, f.cookies, v, nil)
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {v}, "client_id": {f.conf.ClientID}, "redirect_uri": {testRedirect}}
			change(form)
			status, body, _ := tokenRequest(t, e, form)
			want := "invalid_grant"
			if name == "resource" {
				want = "invalid_target"
			}
			if status != http.StatusBadRequest || body["error"] != want {
				t.Errorf("%s: %d %v, want 400 %s", name, status, body, want)
			}
		}
	})

	t.Run("code replay revokes what the code issued", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		code := authorize(t, e, f.conf, f.cookies, v, nil)
		tok, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v))
		if err != nil {
			t.Fatal(err)
		}
		if !f.works(t, tok.AccessToken, "/mcp", "") {
			t.Fatal("fresh token refused")
		}
		if _, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v)); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("replay: %v, want invalid_grant", err)
		}
		if f.works(t, tok.AccessToken, "/mcp", "") {
			t.Error("the replayed code's access token still works")
		}
	})

	t.Run("expired code", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		code := authorize(t, e, f.conf, f.cookies, v, nil)
		e.clock.Advance(61 * time.Second)
		if _, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v)); oauthErrorOf(err) != "invalid_grant" {
			t.Errorf("a code after 61 s: %v, want invalid_grant", err)
		}
	})

	t.Run("refresh reuse revokes the grant", func(t *testing.T) {
		tok := f.tokens(t)
		first := tok.RefreshToken
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first}, "client_id": {f.conf.ClientID}}
		status, rotated, h := tokenRequest(t, e, form)
		if status != http.StatusOK || h.Get("Cache-Control") != "no-store" {
			t.Fatalf("refresh: %d %v (Cache-Control %q)", status, rotated, h.Get("Cache-Control"))
		}
		newAccess := rotated["access_token"].(string)
		if !f.works(t, newAccess, "/mcp", "") {
			t.Fatal("rotated token refused")
		}
		status, body, _ := tokenRequest(t, e, form) // the old one again
		if status != http.StatusBadRequest || body["error"] != "invalid_grant" {
			t.Errorf("reused refresh token: %d %v", status, body)
		}
		if f.works(t, newAccess, "/mcp", "") {
			t.Error("after refresh reuse the grant's newest access token still works")
		}
		status, body, _ = tokenRequest(t, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rotated["refresh_token"].(string)}, "client_id": {f.conf.ClientID}})
		if status != http.StatusBadRequest || body["error"] != "invalid_grant" {
			t.Errorf("the rotated refresh token after reuse: %d %v", status, body)
		}
	})

	t.Run("scope widening on refresh", func(t *testing.T) {
		conf := *f.conf
		conf.Scopes = []string{"decks:read"}
		v := oauth2.GenerateVerifier()
		code := authorize(t, e, &conf, f.cookies, v, nil)
		tok, err := conf.Exchange(f.ctx, code, oauth2.VerifierOption(v))
		if err != nil {
			t.Fatal(err)
		}
		status, body, _ := tokenRequest(t, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
			"client_id": {f.conf.ClientID}, "scope": {"decks:read decks:write"}})
		if status != http.StatusBadRequest || body["error"] != "invalid_scope" {
			t.Errorf("widening refresh: %d %v, want invalid_scope", status, body)
		}
	})

	t.Run("revoked token and revoked grant", func(t *testing.T) {
		tok := f.tokens(t)
		resp, err := http.PostForm(e.addr+"/oauth/revoke", url.Values{"token": {tok.AccessToken}, "client_id": {f.conf.ClientID}})
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("revoke: %v %v", resp, err)
		}
		resp.Body.Close()
		if f.works(t, tok.AccessToken, "/mcp", "") {
			t.Error("a revoked access token works")
		}
		// Revoking the refresh token revokes the grant.
		resp, _ = http.PostForm(e.addr+"/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {f.conf.ClientID}})
		resp.Body.Close()
		status, body, _ := tokenRequest(t, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {f.conf.ClientID}})
		if status != http.StatusBadRequest || body["error"] != "invalid_grant" {
			t.Errorf("refresh after revocation: %d %v", status, body)
		}
		// Another client cannot revoke someone's token, and is not told it exists.
		other := f.tokens(t)
		resp, _ = http.PostForm(e.addr+"/oauth/revoke", url.Values{"token": {other.AccessToken}, "client_id": {"tbc_intruder"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !f.works(t, other.AccessToken, "/mcp", "") {
			t.Errorf("another client's revocation: %d, token works afterwards: want 200 and yes", resp.StatusCode)
		}
	})

	t.Run("expired access token", func(t *testing.T) {
		tok := f.tokens(t)
		e.clock.Advance(61 * time.Minute)
		if f.works(t, tok.AccessToken, "/mcp", "") {
			t.Error("an access token works after an hour")
		}
	})

	t.Run("a token works only on the resource it was issued for", func(t *testing.T) {
		main := f.tokens(t)
		host := f.tokens(t, oauth2.SetAuthURLParam("resource", "https://"+mcpHost+"/"))
		if !f.works(t, main.AccessToken, "/mcp", "") || !f.works(t, main.AccessToken, "/mcp/oauth", "") || !f.works(t, main.AccessToken, "/mcp/", "") {
			t.Error("a <base>/mcp token is refused on /mcp or its aliases")
		}
		if f.works(t, main.AccessToken, "/", mcpHost) {
			t.Error("a <base>/mcp token works on the MCP host")
		}
		if !f.works(t, host.AccessToken, "/", mcpHost) {
			t.Error("an MCP host token is refused on the MCP host")
		}
		if f.works(t, host.AccessToken, "/mcp", "") {
			t.Error("an MCP host token works on <base>/mcp")
		}
		// The MCP host has metadata of its own.
		req, _ := http.NewRequest(http.MethodGet, e.addr+"/.well-known/oauth-protected-resource", nil)
		req.Host = mcpHost
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc struct {
			Resource string `json:"resource"`
		}
		_ = jsonDecode(resp, &doc)
		if doc.Resource != "https://"+mcpHost+"/" {
			t.Errorf("MCP host metadata resource %q", doc.Resource)
		}
	})

	t.Run("OAuth tokens are refused on the REST API", func(t *testing.T) {
		tok := f.tokens(t)
		resp, _ := e.request(t, http.MethodGet, "/api/decks", nil, bearer(tok.AccessToken))
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("/api/decks with an OAuth token: %d, want 401", resp.StatusCode)
		}
	})

	t.Run("CORS on metadata, token, registration and revocation; never authorize", func(t *testing.T) {
		for _, p := range []string{"/oauth/token", "/oauth/register", "/oauth/revoke", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp"} {
			req, _ := http.NewRequest(http.MethodOptions, e.addr+p, nil)
			req.Header.Set("Origin", "https://app.example")
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("preflight %s: %d %q", p, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			}
		}
		req, _ := http.NewRequest(http.MethodOptions, e.addr+"/oauth/authorize", nil)
		req.Header.Set("Origin", "https://app.example")
		resp, _ := http.DefaultClient.Do(req)
		resp.Body.Close()
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Error("the authorization endpoint answers CORS")
		}
	})

	t.Run("token endpoint errors use RFC 6749 bodies", func(t *testing.T) {
		for form, want := range map[string]string{
			"grant_type=password&client_id=C":                              "unsupported_grant_type",
			"client_id=C":                                                  "invalid_request",
			"grant_type=authorization_code":                                "invalid_request",
			"grant_type=authorization_code&client_id=C&code=zz":            "invalid_grant",
			"grant_type=refresh_token&client_id=C&refresh_token=tbor_nope": "invalid_grant",
		} {
			q, _ := url.ParseQuery(strings.ReplaceAll(form, "=C", "="+f.conf.ClientID))
			status, body, h := tokenRequest(t, e, q)
			if status != http.StatusBadRequest || body["error"] != want || body["error_description"] == "" || h.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d %v, want 400 %s", form, status, body, want)
			}
		}
	})

	// RFC 6749 §5.2: a client_id registered nowhere here is invalid_client
	// with 401, whatever the grant, before its code is spent; Claude
	// registers again on this answer.
	t.Run("unknown client is invalid_client 401", func(t *testing.T) {
		v := oauth2.GenerateVerifier()
		code := authorize(t, e, f.conf, f.cookies, v, nil)
		for _, id := range []string{"tbc_nobody", "x", "https://app.example/", strings.Repeat("z", 300)} {
			for _, form := range []url.Values{
				{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {v}, "redirect_uri": {testRedirect}},
				{"grant_type": {"refresh_token"}, "refresh_token": {"tbor_nope"}},
				{"grant_type": {"password"}},
			} {
				form.Set("client_id", id)
				status, body, h := tokenRequest(t, e, form)
				if status != http.StatusUnauthorized || body["error"] != "invalid_client" || body["error_description"] == "" || h.Get("Cache-Control") != "no-store" {
					t.Errorf("client %.20q, %s: %d %v, want 401 invalid_client", id, form.Get("grant_type"), status, body)
				}
			}
		}
		// Named by HTTP Basic, the answer names the scheme.
		req, _ := http.NewRequest(http.MethodPost, e.addr+"/oauth/token", strings.NewReader("grant_type=refresh_token&refresh_token=tbor_nope"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("tbc_nobody", "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("unknown client by Basic: %d, WWW-Authenticate %q; want 401 Basic", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		// The code was not spent: its own client still exchanges it.
		if _, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(v)); err != nil {
			t.Errorf("the code after the unknown clients' attempts: %v", err)
		}
	})
}

// Registration refuses what RFC 7591 and the redirect rules forbid, and
// is rate limited.
func TestOAuthRegistrationRefusals(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	for body, want := range map[string]string{
		`{"redirect_uris":["javascript:alert(1)"]}`:                                                     "invalid_redirect_uri",
		`{"redirect_uris":["data:text/html,x"]}`:                                                        "invalid_redirect_uri",
		`{"redirect_uris":["http://evil.example/cb"]}`:                                                  "invalid_redirect_uri",
		`{"redirect_uris":["https://app.example/cb#frag"]}`:                                             "invalid_redirect_uri",
		`{"redirect_uris":[]}`:                                                                          "invalid_redirect_uri",
		`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`: "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`:               "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`:                         "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"scope":"root"}`:                                     "invalid_client_metadata",
		`not json`: "invalid_client_metadata",
	} {
		status, m := register(t, e, body)
		if status != http.StatusBadRequest || m["error"] != want {
			t.Errorf("%s: %d %v, want 400 %s", body, status, m, want)
		}
	}
	// Accepted: loopback with any port, a private-use scheme. (A second
	// service: the first has used its address's ten registrations.)
	e = newEnv(t, sqliteURL(t), nil)
	for _, uri := range []string{"http://localhost:53682/cb", "http://[::1]:1/cb", "cursor://anysphere.cursor-retrieval/oauth/callback", "https://claude.ai/api/mcp/auth_callback"} {
		if status, m := register(t, e, `{"redirect_uris":["`+uri+`"]}`); status != http.StatusCreated {
			t.Errorf("%s: %d %v, want 201", uri, status, m)
		}
	}
	// Rate limited per address: 10 a minute.
	limited := false
	for range 10 {
		if status, _ := register(t, e, `{"redirect_uris":["https://a.example/cb"]}`); status == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("registration is not rate limited")
	}
}

// jsonDecode decodes a response body.
func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
