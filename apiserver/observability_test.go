package apiserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// /metrics is served to loopback clients only (not through a proxy), with
// per-route and per-tool series whose labels are bounded.
func TestMetricsOnLoopback(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.ScopeDecksRead)
	e.rpc(t, listDecks, bearer(key))
	e.rpc(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_deck","arguments":{"deckId":"nope"}}}`, bearer(key))
	e.rpc(t, listDecks, bearer("bad"))
	e.request(t, http.MethodGet, "/no/such/path/12345", nil, nil)

	resp, body := e.request(t, http.MethodGet, "/metrics", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics from loopback: %d", resp.StatusCode)
	}
	text := string(body)
	for _, want := range []string{
		`takhtabush_mcp_tool_calls_total{outcome="ok",tool="list_decks"} 1`,
		`takhtabush_mcp_tool_calls_total{outcome="tool_error",tool="get_deck"} 1`,
		`takhtabush_mcp_tool_call_duration_seconds_count{tool="list_decks"} 1`,
		`takhtabush_http_requests_total{code="200",method="POST",route="/mcp"} 2`,
		`takhtabush_http_requests_total{code="401",method="POST",route="/mcp"} 1`,
		`takhtabush_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`takhtabush_http_request_duration_seconds_count{method="POST",route="/mcp"} 3`,
		`takhtabush_audit_write_failures_total 0`,
		`go_goroutines`,
		`takhtabush_sqlite_wal_bytes `,
		`takhtabush_sqlite_checkpoints_total{mode="passive",outcome="done"} `,
		`takhtabush_sqlite_checkpoints_total{mode="truncate",outcome="busy"} `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, "/no/such/path") {
		t.Error("a raw path became a label")
	}
	if resp, _ := e.request(t, http.MethodGet, "/metrics", nil, http.Header{"X-Forwarded-For": {"203.0.113.9"}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics through a proxy: %d, want 404", resp.StatusCode)
	}
}

// With an admin address, /metrics moves there.
func TestMetricsOnAdminAddress(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.AdminAddr = "127.0.0.1:0" })
	if resp, _ := e.request(t, http.MethodGet, "/metrics", nil, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the main address with an admin address: %d, want 404", resp.StatusCode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e.app.AdminHandler(), ReadHeaderTimeout: time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
		resp, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || (path == "/metrics" && !strings.Contains(string(b), "takhtabush_http_requests_total")) {
			t.Errorf("admin %s: %d", path, resp.StatusCode)
		}
	}
}

// Every request gets an id (a sane incoming X-Request-Id is kept) that is
// echoed, logged and stored in the audit row; logs never carry a key, a
// session token, a sign-in token or a cookie.
func TestRequestIDsAndNoSecretsInLogs(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, keyID := e.key(t, contracts.AllScopes...)

	h := bearer(key)
	h.Set("X-Request-Id", "trace-42")
	resp, body := e.rpc(t, createDeck, h)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") != "trace-42" {
		t.Fatalf("create_deck: %d %s, X-Request-Id %q", resp.StatusCode, body, resp.Header.Get("X-Request-Id"))
	}
	events, err := e.app.AuditTrail(context.Background(), testUser, 1)
	if err != nil || len(events) != 1 || events[0].RequestID != "trace-42" {
		t.Fatalf("audit row %+v %v, want request id trace-42", events, err)
	}
	resp, _ = e.rpc(t, listDecks, http.Header{"X-Api-Key": {key}, "X-Request-Id": {"bad id with spaces <script>"}})
	if id := resp.Header.Get("X-Request-Id"); len(id) != 24 {
		t.Errorf("an insane X-Request-Id was replaced by %q", id)
	}
	e.rpc(t, listDecks, bearer(key+"x")) // a refused key
	link, _, err := e.app.LoginLink(context.Background(), testUser)
	if err != nil {
		t.Fatal(err)
	}
	token := link[strings.Index(link, "token=")+len("token="):]
	cookies, csrf := e.signIn(t, testUser)
	e.request(t, http.MethodGet, "/login?token="+token, nil, nil) // a used link: the token is in the URL
	e.request(t, http.MethodGet, "/api/decks", nil, nil, cookies...)

	logs := e.logs.String()
	secret := strings.TrimPrefix(key, "tbk_"+keyID+"_") // secrets may contain '_'
	for name, s := range map[string]string{"API key": key, "key secret": secret, "sign-in token": token, "CSRF token": csrf} {
		if strings.Contains(logs, s) {
			t.Errorf("the logs carry the %s", name)
		}
	}
	for _, c := range cookies {
		if strings.Contains(logs, c.Value) {
			t.Errorf("the logs carry the %s cookie", c.Name)
		}
	}
	for _, want := range []string{`"request_id":"trace-42"`, `"tool":"create_deck"`, `"credential_id":"` + keyID + `"`, `"route":"/mcp"`, `"status":401`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the logs lack %s", want)
		}
	}
}
