package apiserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/adapters/clientdoc"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// The consent step through the real page in chromium: a registered client
// sends the browser to the authorization endpoint, which sends a visitor
// to sign in; signed in, the person sees who asks for what, unticks a
// scope and allows; the browser lands on the client's callback with the
// code, which x/oauth2 exchanges and the SDK client uses. Then Settings →
// Connected apps lists the app and disconnects it. Every page is looked at
// (screenshots at 360 and 1280 px, light and dark, axe-core).
func TestOAuthConsentInABrowser(t *testing.T) {
	// The metadata-document client's document, on a loopback TLS server the
	// fetcher reaches through its test-only allowance.
	var docBody string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, docBody)
	}))
	defer docs.Close()
	fetcher := clientdoc.New()
	if err := fetcher.AllowLoopback(docs.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.ClientDocuments = fetcher })
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Callback</title><body><main><h1>Back in the app</h1></main></body></html>`)
	}))
	defer cb.Close()
	redirect := cb.URL + "/callback"
	status, reg := register(t, e, `{"client_name":"Browser Assistant","client_uri":"https://assistant.example","redirect_uris":["`+redirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("registration: %d %v", status, reg)
	}
	d := discover(t, e, "/mcp")
	conf := oauthConfig(e, d, reg["client_id"].(string), "decks:read", "decks:write", "media:write")
	conf.RedirectURL = redirect
	v := oauth2.GenerateVerifier()
	authURL, _ := url.Parse(conf.AuthCodeURL("browser-state", oauth2.S256ChallengeOption(v), oauth2.SetAuthURLParam("resource", d.resource)))

	b := newBrowser(t, e)
	b.open(authURL.RequestURI())
	if loc := b.location(); !strings.HasPrefix(loc, "/signin?next=") {
		t.Fatalf("a visitor at the authorization endpoint is at %s, want the sign-in page", loc)
	}
	b.signIn(testUser)
	b.open(authURL.RequestURI())
	txt := b.text()
	for _, want := range []string{"Browser Assistant wants to use your Takhtabush account", "assistant.example", "See your decks and cards", "Upload pictures"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the consent page does not say %q:\n%s", want, txt)
		}
	}
	b.look("oauth-consent")

	b.click(`input[value="media:write"]`)
	b.submit("#allow")
	landed, err := url.Parse(get(b, "location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	q := landed.Query()
	if !strings.HasPrefix(landed.String(), redirect+"?") || q.Get("state") != "browser-state" || q.Get("iss") != e.base || q.Get("code") == "" {
		t.Fatalf("the browser landed on %s", landed)
	}
	tok, err := conf.Exchange(ctxFor(e), q.Get("code"), oauth2.VerifierOption(v), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if tok.Extra("scope") != "decks:read decks:write" {
		t.Errorf("granted %v, want what was left ticked", tok.Extra("scope"))
	}
	cs := connect(t, e.base+"/mcp", bearer(tok.AccessToken), "")
	var deck struct {
		ID string `json:"id"`
	}
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Made through consent"}, &deck)

	b.open("/settings/connected-apps")
	if txt := b.text(); !strings.Contains(txt, "Browser Assistant") || !strings.Contains(txt, "decks:write") || strings.Contains(txt, "media:write") {
		t.Errorf("Connected apps:\n%s", txt)
	}
	b.look("oauth-connected-apps")
	b.submit(`#apps button[type="submit"]`)
	if txt := b.text(); !strings.Contains(txt, "Disconnected") || strings.Contains(txt, "Browser Assistant") {
		t.Errorf("after disconnecting:\n%s", txt)
	}
	b.look("oauth-connected-apps-empty")
	if resp, _ := e.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, bearer(tok.AccessToken)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the disconnected app's token: %d, want 401", resp.StatusCode)
	}

	// Then a client ID metadata document client, through the same page.
	docID := docs.URL + "/oauth/client.json"
	docBody = `{"client_id":"` + docID + `","client_name":"Document Assistant","redirect_uris":["` + redirect + `"]}`
	dconf := oauthConfig(e, d, docID, "decks:read", "stats:read")
	dconf.RedirectURL = redirect
	dv := oauth2.GenerateVerifier()
	dURL, _ := url.Parse(dconf.AuthCodeURL("doc-state", oauth2.S256ChallengeOption(dv)))
	b.open(dURL.RequestURI())
	if txt := b.text(); !strings.Contains(txt, "Document Assistant wants to use your Takhtabush account") || !strings.Contains(txt, docID) {
		t.Errorf("the consent page for a document client:\n%s", txt)
	}
	b.look("oauth-consent-document")
	b.submit("#allow")
	landed, err = url.Parse(get(b, "location", chromedp.Location()))
	if err != nil || landed.Query().Get("state") != "doc-state" || landed.Query().Get("code") == "" {
		t.Fatalf("the browser landed on %v (%v)", landed, err)
	}
	dtok, err := dconf.Exchange(ctxFor(e), landed.Query().Get("code"), oauth2.VerifierOption(dv))
	if err != nil {
		t.Fatalf("document client exchange: %v", err)
	}
	dcs := connect(t, e.base+"/mcp", bearer(dtok.AccessToken), "")
	var decks struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	call(t, dcs, contracts.ToolListDecks, map[string]any{}, &decks)
	if len(decks.Items) != 1 || decks.Items[0].Name != "Made through consent" {
		t.Errorf("list_decks with the document client's token: %+v", decks)
	}
}
