package apiserver_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/adapters/clientdoc"
	"github.com/takhtabush/takhtabush/apiserver"
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
