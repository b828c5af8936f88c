package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/adapters/clientdoc"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// A client ID metadata document client: no registration, its https
// client_id is fetched (from a loopback TLS server, through the fetcher's
// test-only allowance), checked, named on the consent page, and its token
// calls tools with the SDK client.
func TestOAuthMetadataDocumentClientFlow(t *testing.T) {
	var docs map[string]string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	fetcher := clientdoc.New()
	if err := fetcher.AllowLoopback(srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs); err != nil {
		t.Fatal(err)
	}
	clientID := srv.URL + "/oauth/client.json"
	docs = map[string]string{
		"/oauth/client.json":  `{"client_id":"` + clientID + `","client_name":"Doc Assistant","redirect_uris":["` + testRedirect + `"],"token_endpoint_auth_method":"none"}`,
		"/impostor.json":      `{"client_id":"https://claude.ai/oauth/client.json","redirect_uris":["` + testRedirect + `"]}`,
		"/evil-redirect.json": `{"client_id":"` + srv.URL + `/evil-redirect.json","redirect_uris":["javascript:alert(1)"]}`,
	}

	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.ClientDocuments = fetcher })
	d := discover(t, e, "/mcp/oauth")
	if d.resource != e.base+"/mcp/oauth" {
		t.Fatalf("resource of the alias %q", d.resource)
	}
	conf := oauthConfig(e, d, clientID, "decks:read", "decks:write")
	cookies, _ := e.signIn(t, testUser)
	v := oauth2.GenerateVerifier()
	resp, body := page(t, e, conf.AuthCodeURL("doc", oauth2.S256ChallengeOption(v), oauth2.SetAuthURLParam("resource", d.resource)), cookies)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Doc Assistant") || !strings.Contains(body, "Checked: it is described at") || !strings.Contains(body, clientID) {
		t.Fatalf("consent page for a document client: %d\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<img") {
		t.Error("the consent page shows an image")
	}
	r, b := submitConsent(t, e, body, cookies, "allow", nil)
	q := callback(t, r, b)
	tok, err := conf.Exchange(ctxFor(e), q.Get("code"), oauth2.VerifierOption(v), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	// The alias is the same audience as /mcp.
	cs := connect(t, e.base+"/mcp", bearer(tok.AccessToken), "")
	var deck struct {
		ID string `json:"id"`
	}
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Doc deck"}, &deck)
	if deck.ID == "" {
		t.Fatal("create_deck returned no id")
	}
	_, apps := page(t, e, e.base+"/settings/connected-apps", cookies)
	if !strings.Contains(apps, "Doc Assistant") || !strings.Contains(apps, "127.0.0.1") {
		t.Errorf("Connected apps does not list the document client with its domain:\n%s", apps)
	}

	// Documents that lie about themselves, or break the redirect rules, or are missing.
	for _, path := range []string{"/impostor.json", "/evil-redirect.json", "/missing.json"} {
		q := url.Values{"response_type": {"code"}, "client_id": {srv.URL + path}, "redirect_uri": {testRedirect},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(v)}, "code_challenge_method": {"S256"}}
		resp, body := page(t, e, e.base+"/oauth/authorize?"+q.Encode(), cookies)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d Location %q, want a 400 page\n%s", path, resp.StatusCode, resp.Header.Get("Location"), body)
		}
	}
}
