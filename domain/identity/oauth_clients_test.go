package identity_test

import (
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/identity"
)

func TestValidateRedirectURI(t *testing.T) {
	ok := []string{
		"https://claude.ai/api/mcp/auth_callback", "https://chatgpt.com/connector_platform_oauth_redirect",
		"http://localhost:53682/callback", "http://127.0.0.1/cb", "http://[::1]:9/cb", "http://127.0.0.1:7777/callback?x=1",
		"cursor://anysphere.cursor-retrieval/oauth/callback", "com.example.app:/oauth2redirect",
	}
	bad := []string{
		"", "javascript:alert(1)", "JavaScript://x/%0aalert(1)", "data:text/html,hi", "file:///etc/passwd", "vbscript:x",
		"about:blank", "blob:https://a.example/x", "http://evil.example/cb", "http://10.0.0.1/cb", "https://a.example/cb#frag",
		"https://user@a.example/cb", "/relative", "https:///nohost", "https://a.example/c b", "myapp:opaque",
		"https://a.example/" + strings.Repeat("a", 600),
	}
	for _, u := range ok {
		if err := identity.ValidateRedirectURI(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
	for _, u := range bad {
		err := identity.ValidateRedirectURI(u)
		if err == nil || contracts.OAuthCodeOf(err) != contracts.OAuthInvalidRedirectURI {
			t.Errorf("%q: %v, want invalid_redirect_uri", u, err)
		}
	}
}

func TestValidateClientDocumentURL(t *testing.T) {
	for u, want := range map[string]bool{
		"https://app.example/oauth/client.json": true, "https://app.example/": false, "https://app.example": false,
		"http://app.example/c.json": false, "https://app.example/a/../c.json": false, "https://app.example/c.json#x": false,
		"https://u:p@app.example/c.json": false,
	} {
		if got := identity.ValidateClientDocumentURL(u) == nil; got != want {
			t.Errorf("%q accepted=%v, want %v", u, got, want)
		}
	}
}

// checkRegisteredClient states what any accepted client satisfies.
func checkRegisteredClient(t *testing.T, c contracts.OAuthClient) {
	t.Helper()
	if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > 10 {
		t.Fatalf("accepted %d redirect URIs", len(c.RedirectURIs))
	}
	for i, r := range c.RedirectURIs {
		if identity.ValidateRedirectURI(r) != nil || strings.Contains(r, "#") || slices.Contains(c.RedirectURIs[:i], r) {
			t.Fatalf("accepted redirect URI %q", r)
		}
		u, err := url.Parse(r)
		if err != nil {
			t.Fatalf("accepted unparsable %q", r)
		}
		switch u.Scheme {
		case "javascript", "data", "file", "vbscript", "about", "blob":
			t.Fatalf("accepted scheme %q", u.Scheme)
		case "http":
			if h := u.Hostname(); h != "localhost" && !strings.EqualFold(h, "localhost") && (net.ParseIP(h) == nil || !net.ParseIP(h).IsLoopback()) {
				t.Fatalf("accepted http on %q", h)
			}
		}
	}
	if !utf8.ValidString(c.Name) || utf8.RuneCountInString(c.Name) > 100 {
		t.Fatalf("accepted name %q", c.Name)
	}
	for _, s := range c.Scopes {
		if !s.Valid() {
			t.Fatalf("accepted scope %q", s)
		}
	}
}

func FuzzValidateRegistration(f *testing.F) {
	for _, s := range []string{
		`{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"client_name":"Claude"}`,
		`{"redirect_uris":["http://127.0.0.1:33418/cb","cursor://x/y"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","scope":"decks:read"}`,
		`{"redirect_uris":["javascript:alert(1)"]}`,
		`{"redirect_uris":["http://[::ffff:127.0.0.1]/cb"],"client_uri":"https://a.example"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var reg contracts.OAuthRegistration
		if json.Unmarshal(data, &reg) != nil {
			return
		}
		c, err := identity.ValidateRegistration(reg)
		if err != nil {
			if code := contracts.OAuthCodeOf(err); code != contracts.OAuthInvalidRedirectURI && code != contracts.OAuthInvalidClientMetadata {
				t.Fatalf("refusal with code %q: %v", code, err)
			}
			return
		}
		checkRegisteredClient(t, c)
	})
}

func FuzzParseClientDocument(f *testing.F) {
	id := "https://app.example/oauth/client.json"
	f.Add(id, []byte(`{"client_id":"`+id+`","client_name":"App","redirect_uris":["https://app.example/cb"]}`))
	f.Add(id, []byte(`{"client_id":"https://other.example/c.json","redirect_uris":["https://app.example/cb"]}`))
	f.Add(id, []byte(`{"client_id":"`+id+`","redirect_uris":["data:x"]}`))
	f.Add(id, []byte(`[]`))
	f.Fuzz(func(t *testing.T, clientID string, body []byte) {
		c, err := identity.ParseClientDocument(clientID, body)
		if err != nil {
			if contracts.OAuthCodeOf(err) != contracts.OAuthInvalidClient {
				t.Fatalf("refusal without invalid_client: %v", err)
			}
			return
		}
		if c.ID != clientID || c.Kind != contracts.OAuthClientMetadataDocument || len(body) > 5<<10 {
			t.Fatalf("accepted a document for %q as %q (%s, %d bytes)", clientID, c.ID, c.Kind, len(body))
		}
		checkRegisteredClient(t, c)
	})
}
