package apiserver_test

import (
	"context"
	"html"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// The setup page is public, names the MCP URL and the five clients, and
// answers a browser's GET of /mcp and of the MCP host's bare origin.
func TestConnectPage(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.MCPHost = "mcp.takhtabush.example" })
	browser := http.Header{"Accept": {"text/html,application/xhtml+xml"}}
	for _, path := range []string{"/connect", "/mcp", "/mcp/"} {
		resp, body := e.request(t, http.MethodGet, path, nil, browser)
		page := html.UnescapeString(string(body))
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		for _, want := range []string{e.base + "/mcp", "Claude Desktop", "claude mcp add --transport http takhtabush",
			"Cursor", "~/.cursor/mcp.json", "VS Code", ".vscode/mcp.json", `"type": "http"`, "ChatGPT",
			"takhtabush keys create", "https://mcp.takhtabush.example/"} {
			if !strings.Contains(page, want) {
				t.Errorf("GET %s: the page lacks %q", path, want)
			}
		}
	}
	// A non-browser GET of /mcp is not the page: MCP answers 405 (after auth).
	key, _ := e.key(t, contracts.ScopeDecksRead)
	if resp, _ := e.request(t, http.MethodGet, "/mcp", nil, bearer(key)); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp without text/html: %d, want 405", resp.StatusCode)
	}

	// The bare origin of the MCP host: the page for a browser, MCP for a client.
	req, _ := http.NewRequest(http.MethodGet, e.base+"/", nil)
	req.Host = "mcp.takhtabush.example"
	req.Header = browser
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Claude Code") {
		t.Errorf("browser GET of the MCP host's bare origin: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, e.base+"/", strings.NewReader(listDecks))
	req.Host = "mcp.takhtabush.example"
	req.Header = bearer(key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Errorf("POST to the MCP host's bare origin: %d %s", resp.StatusCode, body)
	}
	// Another host's bare origin is not MCP.
	if resp, _ := e.request(t, http.MethodPost, "/", listDecks, bearer(key)); resp.StatusCode == http.StatusOK {
		t.Error("POST / on the main host answered like MCP")
	}
	// /mcp/oauth is an alias; other paths below /mcp are not.
	if resp, body := e.request(t, http.MethodPost, "/mcp/oauth", listDecks, bearer(key)); resp.StatusCode != http.StatusOK {
		t.Errorf("POST /mcp/oauth: %d %s", resp.StatusCode, body)
	}
	if resp, _ := e.request(t, http.MethodPost, "/mcp/other", listDecks, bearer(key)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp/other: %d, want 404", resp.StatusCode)
	}
}

// The protected-resource metadata names the /mcp resource and the scopes.
func TestProtectedResourceMetadata(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, body := e.request(t, http.MethodGet, path, nil, nil)
		want := `{"authorization_servers":["` + e.base + `"],"bearer_methods_supported":["header"],"resource":"` + e.base + `/mcp","resource_documentation":"` + e.base + `/connect","resource_name":"Takhtabush","scopes_supported":["decks:read","stats:read","decks:write","study:write","media:write","study:render"]}`
		if resp.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s: %d %s, want %s", path, resp.StatusCode, body, want)
		}
	}
}

// /healthz answers while the process runs; /readyz follows the database.
func TestProbes(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	if resp, _ := e.request(t, http.MethodGet, "/healthz", nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
	if resp, body := e.request(t, http.MethodGet, "/readyz", nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d %s", resp.StatusCode, body)
	}
	e.app.Close() // the database goes away under a running server
	if resp, body := e.request(t, http.MethodGet, "/readyz", nil, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database closed: %d %s, want 503", resp.StatusCode, body)
	}
	if resp, _ := e.request(t, http.MethodGet, "/healthz", nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with the database closed: %d", resp.StatusCode)
	}
}

// A request in flight when shutdown starts still completes; new
// connections are refused; Serve returns; the database is then closed.
func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.ScopeDecksRead)

	// Send the headers and half of the body, start shutting down, then finish.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", pr)
	req.Header = bearer(key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- result{status: resp.StatusCode, body: string(b)}
	}()
	half := len(listDecks) / 2
	if _, err := pw.Write([]byte(listDecks[:half])); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the request is now in flight

	stopped := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() { stopped <- e.stop() })
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-stopped:
		t.Fatalf("shutdown finished (%v) with a request in flight", err)
	default:
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(e.base, "http://"), time.Second); err == nil {
		c.Close()
		t.Error("a new connection was accepted during shutdown")
	}
	if _, err := pw.Write([]byte(listDecks[half:])); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-done
	if r.err != nil || r.status != http.StatusOK || !strings.Contains(r.body, `"result"`) {
		t.Fatalf("in-flight request: %d %q %v, want it answered", r.status, r.body, r.err)
	}
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := e.app.CreateKey(context.Background(), testUser, "late", []contracts.Scope{contracts.ScopeDecksRead}, 0); err == nil {
		t.Error("the database still answers after shutdown")
	}
}

// Request bodies are bounded on /mcp and /api.
func TestBodyLimits(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.MaxBodyBytes = 2048 })
	key, _ := e.key(t, contracts.AllScopes...)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":"` + strings.Repeat("x", 4096) + `"}}}`
	if resp, body := e.rpc(t, big, bearer(key)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /mcp of 4 KiB with a 2 KiB limit: %d %s", resp.StatusCode, body)
	}
	if resp, body := e.request(t, http.MethodPost, "/api/decks", map[string]any{"name": strings.Repeat("x", 4096)}, bearer(key)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /api/decks of 4 KiB with a 2 KiB limit: %d %s", resp.StatusCode, body)
	}
}
