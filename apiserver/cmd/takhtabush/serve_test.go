package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// headerTransport adds fixed headers to every request.
type headerTransport http.Header

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// httpSession connects the SDK client to an MCP endpoint with key.
func httpSession(t *testing.T, endpoint, key string) *mcp.ClientSession {
	t.Helper()
	var h http.Header
	if key != "" {
		h = keyHeader(key)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx(t), &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: headerTransport(h)}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callInto calls a tool that must succeed and decodes its result.
func callInto(t *testing.T, cs *mcp.ClientSession, name string, args, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %v", name, res.Content)
	}
	if out != nil {
		if err := json.Unmarshal(mustJSON(t, res.StructuredContent), out); err != nil {
			t.Fatal(err)
		}
	}
}

// What `make run` does: serve in development mode on a SQLite file whose
// directory does not exist yet; the first start creates the owner and
// prints the MCP URL, a key and the client configurations; the key works;
// a later start prints how to mint another key instead.
func TestServeDevelopmentStart(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "data", "takhtabush.db")
	env := []string{"ENVIRONMENT=development", "MCP_DEV_NO_AUTH=true"}

	s := serve(t, env, "--db", db)
	mcpURL := strings.TrimSpace(strings.TrimPrefix(s.stdout.wait(t, "MCP URL:"), "  MCP URL:"))
	s.stdout.wait(t, "Owner API key")
	key := strings.TrimSpace(s.stdout.wait(t, contracts.APIKeyPrefix))
	s.stdout.wait(t, "── VS Code")
	s.stdout.wait(t, bannerEnd) // the end of the banner
	out := s.stdout.String()
	for _, want := range []string{"owner@localhost", "claude mcp add --transport http takhtabush " + mcpURL, "Bearer " + key, "~/.cursor/mcp.json", "ChatGPT",
		"Web app:", "Sign in:     http", "/login?token=", "Protocol:    MCP 2026-07-28, 2025-11-25"} {
		if !strings.Contains(out, want) {
			t.Errorf("the banner lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "takhtabush.db")); err != nil {
		t.Errorf("the database file was not created: %v", err)
	}
	if strings.Contains(s.stderr.String(), key) {
		t.Error("the key went to the log")
	}

	cs := httpSession(t, mcpURL, key)
	callInto(t, cs, "create_deck", map[string]any{"name": "Dev"}, nil)
	anon := httpSession(t, mcpURL, "") // development: no credential is the owner
	var decks contracts.DeckPage
	callInto(t, anon, "list_decks", map[string]any{}, &decks)
	if len(decks.Items) != 1 {
		t.Errorf("the owner has %d decks, want 1", len(decks.Items))
	}
	cs.Close()
	anon.Close()
	s.stop(t)
	s.stderr.wait(t, "stopped")

	again := serve(t, env, "--db", db)
	again.stdout.wait(t, "already has an API key")
	again.stdout.wait(t, "keys create --db '"+db+"' --email owner@localhost --scopes")
	again.stdout.wait(t, bannerEnd)
	if strings.Contains(again.stdout.String(), contracts.APIKeyPrefix) {
		t.Error("a second start printed a key")
	}
}

// Two serve processes on one Postgres database: a study session started
// through one continues through the other, and a key revoked through one
// is refused by the other on the next request.
func TestTwoInstancesShareOnePostgres(t *testing.T) {
	db := freshPostgres(t)
	env := []string{"TAKHTABUSH_DATABASE_URL=" + db, "TAKHTABUSH_SECRET=shared-secret"}
	mustTB(t, env, "users", "create", "--email", "dee@example.com")
	key := strings.TrimSpace(mustTB(t, env, "keys", "create", "--email", "dee@example.com", "--scopes", contracts.JoinScopes(contracts.AllScopes, ",")))

	a, b := serve(t, env), serve(t, env)
	urlA := strings.TrimSpace(strings.TrimPrefix(a.stdout.wait(t, "MCP endpoint:"), "Takhtabush MCP endpoint:"))
	urlB := strings.TrimSpace(strings.TrimPrefix(b.stdout.wait(t, "MCP endpoint:"), "Takhtabush MCP endpoint:"))
	if urlA == urlB {
		t.Fatalf("both instances on %s", urlA)
	}
	csA, csB := httpSession(t, urlA, key), httpSession(t, urlB, key)

	var deck contracts.Deck
	callInto(t, csA, "create_deck", map[string]any{"name": "Shared"}, &deck)
	callInto(t, csA, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "one", "back": "1"}, {"front": "two", "back": "2"}, {"front": "three", "back": "3"},
	}}, nil)
	var sess contracts.StudySession
	callInto(t, csA, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
	reviews := 0
	for cur, via := sess.Current, 0; cur != nil; via++ {
		cs := []*mcp.ClientSession{csB, csA}[via%2] // the first review through B, then alternating
		var rr contracts.ReviewResult
		callInto(t, cs, "submit_review", map[string]any{"sessionId": sess.ID, "cardId": cur.CardID, "position": cur.Position, "rating": "easy"}, &rr)
		cur = rr.Next
		if reviews++; reviews > 20 {
			t.Fatal("the queue never empties")
		}
	}
	var rendered contracts.StudySession
	callInto(t, csB, "render_study_session", map[string]any{"sessionId": sess.ID}, &rendered)
	if !rendered.Done || rendered.Reviewed != reviews {
		t.Errorf("session through B = %+v, want done after %d reviews", rendered, reviews)
	}

	// Revoke the key through A's REST API, signed in on A's web session.
	baseA := strings.TrimSuffix(urlA, "/mcp")
	link := strings.TrimSpace(mustTB(t, env, "users", "login-link", "--email", "dee@example.com", "--base-url", baseA))
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	lu, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	// The link's page asks "Sign in as …?"; its button posts the token.
	signIn, _ := http.NewRequest(http.MethodPost, baseA+"/login", strings.NewReader(url.Values{"token": {lu.Query().Get("token")}}.Encode()))
	signIn.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	signIn.Header.Set("Origin", baseA)
	resp, err := noRedirect.Do(signIn)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var csrf string
	for _, c := range resp.Cookies() {
		if c.Name == "tb_csrf" {
			csrf = c.Value
		}
	}
	keys := mustTB(t, env, "keys", "list", "--email", "dee@example.com")
	keyID := strings.Fields(strings.Split(keys, "\n")[1])[0]
	req, _ := http.NewRequest(http.MethodDelete, baseA+"/api/keys/"+url.PathEscape(keyID), nil)
	for _, c := range resp.Cookies() {
		req.AddCookie(c)
	}
	req.Header.Set("X-CSRF-Token", csrf)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(del.Body)
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /api/keys/%s on A: %d %s", keyID, del.StatusCode, body)
	}

	post, _ := http.NewRequest(http.MethodPost, urlB, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	post.Header = keyHeader(key)
	post.Header.Set("Content-Type", "application/json")
	post.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	refused, err := http.DefaultClient.Do(post)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(refused.Body)
	refused.Body.Close()
	if refused.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"jsonrpc":"2.0"`) ||
		!strings.Contains(refused.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("the revoked key on B: %d %s", refused.StatusCode, body)
	}
	if _, err := csB.CallTool(ctx(t), &mcp.CallToolParams{Name: "list_decks", Arguments: map[string]any{}}); err == nil {
		t.Error("B's open session still works with the revoked key")
	}
}
