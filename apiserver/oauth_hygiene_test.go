package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/adapters/clientdoc"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/ports"
)

// proxiedEnv is a service that believes X-Forwarded-For from loopback, so
// a test can speak from any client address.
func proxiedEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, sqliteURL(t), func(c *apiserver.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
}

// from sends req as if from the client address addr and returns the
// status and body.
func from(t *testing.T, req *http.Request, addr string) (int, string) {
	t.Helper()
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Registration is limited per client network: an IPv6 host holds a whole
// /64, so ten registrations from ten of its addresses use up the minute's
// budget of that /64 (and only of it).
func TestOAuthRegistrationLimitPerNetwork(t *testing.T) {
	e := proxiedEnv(t)
	reg := func(addr string) int {
		req, _ := http.NewRequest(http.MethodPost, e.addr+"/oauth/register", strings.NewReader(`{"client_name":"Many","redirect_uris":["`+testRedirect+`"]}`))
		req.Header.Set("Content-Type", "application/json")
		status, _ := from(t, req, addr)
		return status
	}
	for i := 1; i <= 10; i++ {
		if s := reg(fmt.Sprintf("2001:db8:1:2::%x", i)); s != http.StatusCreated {
			t.Fatalf("registration %d from the /64: %d", i, s)
		}
	}
	if s := reg("2001:db8:1:2:ffff:ffff:ffff:ffff"); s != http.StatusTooManyRequests {
		t.Errorf("the 11th registration from the same /64, another address: %d, want 429", s)
	}
	if s := reg("2001:db8:1:3::1"); s != http.StatusCreated {
		t.Errorf("a registration from the next /64: %d, want 201", s)
	}
	if s := reg("203.0.113.7"); s != http.StatusCreated {
		t.Errorf("a registration from an IPv4 address: %d, want 201", s)
	}
}

// The unauthenticated authorization endpoint cannot be used to probe hosts
// and ports through client_id metadata-document URLs: every fetch failure
// reads the same, only port 443 is tried, and such requests are limited
// per client network (registered clients are not).
func TestOAuthAuthorizeNoProbing(t *testing.T) {
	e := proxiedEnv(t)
	authorizeFrom := func(clientID, addr string) (int, string) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {testRedirect}, "state": {"s"},
			"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
		req, _ := http.NewRequest(http.MethodGet, e.addr+"/oauth/authorize?"+q.Encode(), nil)
		return from(t, req, addr)
	}
	for _, id := range []string{"https://10.0.0.1/c.json", "https://no-such-host.invalid/c.json", "https://[::a00:1]/c.json", "https://localhost/c.json"} {
		status, body := authorizeFrom(id, "198.51.100.1")
		if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(body), clientdoc.FetchFailed) {
			t.Errorf("%s: %d, want 400 with the one fetch-failure text; page:\n%s", id, status, body)
		}
	}
	if status, body := authorizeFrom("https://app.example:8443/c.json", "198.51.100.1"); status != http.StatusBadRequest || !strings.Contains(body, "port (443)") {
		t.Errorf("another port: %d, want 400 naming port 443; page:\n%s", status, body)
	}
	for i := range 30 {
		if status, _ := authorizeFrom("https://10.0.0.1/c.json", fmt.Sprintf("2001:db8:9:9::%x", i+1)); status != http.StatusBadRequest {
			t.Fatalf("request %d from the /64: %d, want 400", i+1, status)
		}
	}
	if status, body := authorizeFrom("https://10.0.0.2/c.json", "2001:db8:9:9::abcd"); status != http.StatusTooManyRequests || !strings.Contains(body, "Try again in a minute") {
		t.Errorf("the 31st from the /64: %d, want 429; page:\n%s", status, body)
	}
	if status, _ := authorizeFrom("tbc_unknown", "2001:db8:9:9::abcd"); status != http.StatusBadRequest {
		t.Errorf("a registered client's id from the limited network: %d, want its own 400 page", status)
	}
	if status, _ := authorizeFrom("https://10.0.0.1/c.json", "2001:db8:9:a::1"); status != http.StatusBadRequest {
		t.Errorf("the next /64: %d, want 400", status)
	}
}

// The consent page says what is checked and what is not: a client's name
// loses its control, bidirectional and invisible characters; the host the
// answer goes back to (its registered redirect URI's) is the checked
// fact; a registered client's client_uri domain is labelled as its own
// claim.
func TestOAuthConsentHonesty(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	d := discover(t, e, "/mcp")
	status, reg := register(t, e, `{"client_name":"Cl\u200baude\u202e\u2066 Desktop\u200d\u2069","client_uri":"https://claude.ai","redirect_uris":["https://evil.example/cb"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	cookies, _ := e.signIn(t, testUser)
	conf := oauthConfig(e, d, reg["client_id"].(string))
	conf.RedirectURL = "https://evil.example/cb"
	resp, body := page(t, e, conf.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), cookies)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d\n%s", resp.StatusCode, body)
	}
	text := html.UnescapeString(body)
	if !strings.Contains(text, `<span id="client-name">Claude Desktop</span>`) {
		t.Errorf("the client's name is not shown cleaned:\n%q", text[:min(len(text), 4000)])
	}
	for _, r := range []rune{0x200b, 0x200d, 0x202e, 0x2066, 0x2069} {
		if strings.ContainsRune(text, r) {
			t.Errorf("the consent page carries U+%04X", r)
		}
	}
	if !regexp.MustCompile(`Checked: after you answer, you go back to <strong id="redirect-host">evil\.example</strong>`).MatchString(text) {
		t.Errorf("the redirect URI's host is not the checked fact:\n%s", body)
	}
	if !regexp.MustCompile(`Not checked: it says it comes from <strong>claude\.ai</strong> \(self-declared`).MatchString(text) {
		t.Errorf("the self-declared domain is not labelled as such:\n%s", body)
	}
}

// Registration refuses redirect URIs in schemes a browser handles itself
// (it would open a page, or another browser, with the code in it), as it
// refuses javascript: and data:; private-use schemes of native apps stay.
func TestOAuthRegistrationRefusesBrowserSchemes(t *testing.T) {
	e := proxiedEnv(t)
	n := 0
	register := func(t *testing.T, e *env, body string) (int, map[string]any) {
		n++ // each from its own address, under the registration limit
		req, _ := http.NewRequest(http.MethodPost, e.addr+"/oauth/register", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		status, out := from(t, req, fmt.Sprintf("198.51.100.%d", n))
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("registration answer %s: %v", out, err)
		}
		return status, m
	}
	for _, uri := range []string{
		"intent://evil.example/cb#Intent;scheme=https;end", "intent://cb", "x-safari-https://evil.example/cb", "x-safari-http://evil.example/cb",
		"microsoft-edge://evil.example/cb", "microsoft-edge:https://evil.example/cb", "googlechrome://evil.example/cb", "googlechromes://evil.example/cb",
		"firefox://open-url?url=https://evil.example/cb", "opera-https://evil.example/cb", "brave://evil.example/cb", "web+app://cb",
		"chrome://settings", "chrome-extension://abc/cb", "moz-extension://abc/cb", "edge://cb", "Intent://cb",
	} {
		status, body := register(t, e, `{"client_name":"Browser","redirect_uris":["`+uri+`"]}`)
		if status != http.StatusBadRequest || body["error"] != "invalid_redirect_uri" {
			t.Errorf("%s: %d %v, want 400 invalid_redirect_uri", uri, status, body)
		}
	}
	for _, uri := range []string{"cursor://anysphere.cursor-retrieval/oauth/callback", "com.example.app:/oauth/cb", "vscode://ext/cb"} {
		if status, body := register(t, e, `{"client_name":"Native","redirect_uris":["`+uri+`"]}`); status != http.StatusCreated {
			t.Errorf("%s: %d %v, want 201", uri, status, body)
		}
	}
}

// Registered clients never used within 30 days are purged; one a person
// granted stays, however old.
func TestOAuthUnusedClientsPurged(t *testing.T) {
	f := newOAuthFixture(t)
	e := f.e
	f.tokens(t) // the fixture's client is used
	status, reg := register(t, e, `{"client_name":"Never used","redirect_uris":["`+testRedirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	unused := reg["client_id"].(string)
	purge := func() int {
		n, err := e.app.Services().Purge.Expired(context.Background(), ports.ExpiringOAuthClients, 100)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	consent := func(clientID string) int {
		q := f.baseQuery()
		q.Set("client_id", clientID)
		resp, _ := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), f.cookies)
		return resp.StatusCode
	}
	e.clock.Advance(29 * 24 * time.Hour)
	if n := purge(); n != 0 || consent(unused) != http.StatusOK {
		t.Errorf("after 29 days: %d purged, the unused client's consent page %d; want 0 and 200", n, consent(unused))
	}
	e.clock.Advance(2 * 24 * time.Hour)
	if n := purge(); n != 1 {
		t.Errorf("after 31 days: %d purged, want 1", n)
	}
	f.cookies, _ = e.signIn(t, testUser) // the web session ended meanwhile
	if s := consent(unused); s != http.StatusBadRequest {
		t.Errorf("the purged client's consent page: %d, want 400", s)
	}
	// The token endpoint answers a removed client 401 invalid_client
	// (RFC 6749 §5.2), on which a client registers again.
	status, body, _ := tokenRequest(t, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"tbor_nope"}, "client_id": {unused}})
	if status != http.StatusUnauthorized || body["error"] != "invalid_client" {
		t.Errorf("a token request of the purged client: %d %v, want 401 invalid_client", status, body)
	}
	if s := consent(f.conf.ClientID); s != http.StatusOK {
		t.Errorf("the used client's consent page after the purge: %d, want 200", s)
	}
}
