package apiserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/lib/pq" // creates and drops the per-test Postgres databases
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// pgEnv names the Postgres server the Postgres variants of the tests use;
// each test gets a fresh database there, dropped afterwards.
const pgEnv = "TAKHTABUSH_TEST_POSTGRES_URL"

// forEachDB runs fn on SQLite, and on Postgres when pgEnv is set.
func forEachDB(t *testing.T, fn func(t *testing.T, dbURL string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, sqliteURL(t)) })
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgEnv) == "" {
			t.Skip(pgEnv + " is not set")
		}
		fn(t, freshPostgres(t))
	})
}

func sqliteURL(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "data", "takhtabush.db")
}

// freshPostgres creates an empty database on the server of pgEnv and
// returns its URL; the database is dropped when the test ends.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv(pgEnv)
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tb_apiserver_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("creating test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// fakeClock is a settable clock for the domain.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Now().UTC().Truncate(time.Millisecond)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// syncBuffer collects log output from concurrent requests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is one running service: the App serving on a real loopback listener.
type env struct {
	app   *apiserver.App
	base  string // the configured public origin
	addr  string // where it listens: http://127.0.0.1:port
	logs  *syncBuffer
	clock *fakeClock
	db    string
	stop  func() error // stops serving (gracefully) and closes the app
}

// testUser is the account most tests act for.
const testUser = "ada@example.com"

// newEnv starts the service on dbURL. mod may change the configuration.
func newEnv(t *testing.T, dbURL string, mod func(*apiserver.Config)) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	clock := newFakeClock()
	cfg := apiserver.Config{
		DatabaseURL: dbURL,
		Addr:        ln.Addr().String(),
		Logger:      slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Clock:       clock,
		Secret:      "test-secret",
	}
	if mod != nil {
		mod(&cfg)
	}
	ctx := context.Background()
	app, err := apiserver.New(ctx, cfg)
	if err != nil {
		ln.Close()
		t.Fatalf("apiserver.New: %v", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- app.Serve(sctx, ln, nil) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serveErr = <-done
			app.Close()
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	if _, _, err := app.EnsureUser(ctx, testUser, "Ada"); err != nil {
		t.Fatal(err)
	}
	return &env{app: app, base: app.Config().BaseURL, addr: "http://" + ln.Addr().String(), logs: logs, clock: clock, db: dbURL, stop: stop}
}

// key mints a key for testUser with the given scopes.
func (e *env) key(t *testing.T, scopes ...contracts.Scope) (secret, id string) {
	t.Helper()
	k, err := e.app.CreateKey(context.Background(), testUser, "test", scopes, 0)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return k.Secret, k.Key.ID
}

// trustedKey mints a key for testUser and marks it trusted, so that its
// big calls run without the person's confirmation (issue 26 §3): for tests
// about what those calls do.
func (e *env) trustedKey(t *testing.T, scopes ...contracts.Scope) (secret, id string) {
	t.Helper()
	secret, id = e.key(t, scopes...)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
	if err := e.app.Services().Keys.SetKeyTrusted(ctx, id, true); err != nil {
		t.Fatalf("SetKeyTrusted: %v", err)
	}
	return secret, id
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	header http.Header
	base   http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	chooseAll(r.URL.Path, r.Header)
	base := h.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// chooseAll makes a request to /mcp choose every toolset unless it chose
// some: the test account is new, so its default is the lean set, and
// most tests are about tools outside it. Toolset tests use the paths or
// set the header themselves (empty: the account's default).
func chooseAll(path string, h http.Header) {
	if _, chosen := h[http.CanonicalHeaderKey(mcpcore.HeaderToolsets)]; !chosen && (path == "/mcp" || path == "/mcp/" || path == "/mcp/oauth" || path == "/") {
		h.Set(mcpcore.HeaderToolsets, contracts.ToolsetsAll)
	}
}

// bearer is the header set of an API key.
func bearer(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}}
}

// connect opens an MCP client session with the official Go SDK client,
// sending header on every request; version "" is the SDK's latest.
func connect(t *testing.T, endpoint string, header http.Header, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := tryConnect(endpoint, header, version)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func tryConnect(endpoint string, header http.Header, version string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "apiserver-test", Version: "1.0.0"}, nil)
	tr := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: headerTransport{header: header}, Timeout: 30 * time.Second},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// toolNames lists the tools the session sees.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// call calls a tool that must succeed and decodes its structured result into out.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", name, resultText(res))
	}
	checkResult(t, name, res)
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", name, b, err)
		}
	}
	return res
}

// resultSchemas caches the compiled complete result schemas by tool name.
var resultSchemas sync.Map

// checkResult validates a successful call's structuredContent against the
// tool's complete result schema (closed objects, required fields, formats),
// which tools/list sends only in its compact wire form.
func checkResult(t *testing.T, name string, res *mcp.CallToolResult) {
	t.Helper()
	def, ok := contracts.Tool(name)
	if !ok || def.ResultSchema == nil || res.StructuredContent == nil {
		return
	}
	s, ok := resultSchemas.Load(name)
	if !ok {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(def.ResultSchema))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("mcp:///"+name+".json", doc); err != nil {
			t.Fatal(err)
		}
		compiled, err := c.Compile("mcp:///" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		s, _ = resultSchemas.LoadOrStore(name, compiled)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.(*jsonschema.Schema).Validate(doc); err != nil {
		t.Errorf("%s: result does not match its result schema: %v\n%s", name, err, b)
	}
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// request sends one HTTP request to the service.
func (e *env) request(t *testing.T, method, path string, body any, header http.Header, cookies ...*http.Cookie) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if k == "Host" { // the client sends req.Host, never a Host header
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

// rpc posts one JSON-RPC message to /mcp (handshake era) and returns the response.
func (e *env) rpc(t *testing.T, msg string, header http.Header, cookies ...*http.Cookie) (*http.Response, []byte) {
	t.Helper()
	h := http.Header{"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"2025-11-25"}}
	for k, v := range header {
		h[k] = v
	}
	chooseAll("/mcp", h)
	return e.request(t, http.MethodPost, "/mcp", msg, h, cookies...)
}

// signIn opens a web session through a one-time link and returns its
// cookies and CSRF token.
func (e *env) signIn(t *testing.T, email string) (cookies []*http.Cookie, csrf string) {
	t.Helper()
	link, _, err := e.app.LoginLink(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	// Opening the link shows the confirmation page and spends nothing; its
	// button posts the token.
	resp, page := e.request(t, http.MethodGet, u.RequestURI(), nil, nil)
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || !strings.Contains(string(page), "Sign in as "+email) {
		t.Fatalf("opening the sign-in link: status %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	resp, _ = e.request(t, http.MethodPost, "/login", url.Values{"token": {u.Query().Get("token")}}.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {e.base}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range resp.Cookies() {
		cookies = append(cookies, c)
		if c.Name == "tb_csrf" {
			csrf = c.Value
		}
	}
	if len(cookies) != 2 || csrf == "" {
		t.Fatalf("sign-in set cookies %v", resp.Cookies())
	}
	return cookies, csrf
}
