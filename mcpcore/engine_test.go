package mcpcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// post sends body to h with headers and returns status, header and body.
func post(t testing.TB, h http.Handler, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header(), w.Body.String()
}

type rpcResp struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(t testing.TB, body string) rpcResp {
	t.Helper()
	var r rpcResp
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, body)
	}
	return r
}

func echoTool() Tool {
	return Tool{
		Name:        "echo",
		Description: "Echoes text",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			var a struct{ Text string }
			json.Unmarshal(req.Arguments, &a)
			return TextResult(a.Text), nil
		},
	}
}

func newTestServer(t testing.TB, opts Options, tools ...Tool) *Server {
	t.Helper()
	s, err := NewServer(Implementation{Name: "test", Version: "0.1"}, opts, Catalog{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": VersionModern, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestCodecErrors(t *testing.T) {
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool()), HTTPOptions{})
	tests := []struct {
		name       string
		body       string
		hdr        map[string]string
		wantStatus int
		wantCode   int
		wantID     string
	}{
		{"parse error", `{not json`, nil, 400, CodeParseError, "null"},
		{"not an object", `"hello"`, nil, 400, CodeInvalidRequest, "null"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, CodeInvalidRequest, "1"},
		{"missing jsonrpc", `{"id":"a","method":"ping"}`, nil, 400, CodeInvalidRequest, `"a"`},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, CodeInvalidRequest, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, CodeInvalidRequest, "null"},
		{"method not string", `{"jsonrpc":"2.0","id":2,"method":3}`, nil, 400, CodeInvalidRequest, "2"},
		{"unknown method legacy", `{"jsonrpc":"2.0","id":"x","method":"nope"}`, nil, 200, CodeMethodNotFound, `"x"`},
		{"params array", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}`, nil, 200, CodeInvalidParams, "3"},
		{"invalid cursor", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"@@"}}`, nil, 200, CodeInvalidParams, "4"},
		{"unknown tool", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`, nil, 200, CodeInvalidParams, "5"},
		{"arguments not object", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[]}}`, nil, 200, CodeInvalidParams, "6"},
		{"unknown resource legacy", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"x://y"}}`, nil, 200, CodeResourceNotFound, "7"},
		{"bad version header", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, CodeInvalidRequest, "8"},
		{"batch outside 2025-03-26", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, 400, CodeInvalidRequest, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, h, tc.body, tc.hdr)
			if status != tc.wantStatus {
				t.Errorf("status %d, want %d (%s)", status, tc.wantStatus, body)
			}
			r := decode(t, body)
			if r.Error == nil || r.Error.Code != tc.wantCode {
				t.Fatalf("error %+v, want code %d: %s", r.Error, tc.wantCode, body)
			}
			if string(r.ID) != tc.wantID {
				t.Errorf("id %s, want %s", r.ID, tc.wantID)
			}
		})
	}
}

func TestNotificationsAndResponsesGet202(t *testing.T) {
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool()), HTTPOptions{})
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
	} {
		status, hdr, out := post(t, h, body, nil)
		if status != http.StatusAccepted || out != "" {
			t.Errorf("%s: status %d body %q", body, status, out)
		}
		if hdr.Get("Mcp-Session-Id") != "" {
			t.Errorf("session id minted")
		}
	}
}

func TestBatch20250326(t *testing.T) {
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool()), HTTPOptions{})
	status, _, body := post(t, h, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"nope"}]`, nil)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	var rs []rpcResp
	if err := json.Unmarshal([]byte(body), &rs); err != nil || len(rs) != 2 {
		t.Fatalf("batch reply %s", body)
	}
	if string(rs[0].ID) != "1" || rs[1].Error == nil || rs[1].Error.Code != CodeMethodNotFound {
		t.Fatalf("batch reply %s", body)
	}
}

// TestBatchBounds: a batch holds at most MaxBatch messages.
func TestBatchBounds(t *testing.T) {
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool()), HTTPOptions{})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	many := "[" + strings.Repeat(ping+",", MaxBatch) + ping + "]"
	status, _, body := post(t, h, many, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "at most 50") {
		t.Fatalf("oversized batch: %d %s", status, body)
	}
	full := "[" + strings.Repeat(ping+",", MaxBatch-1) + ping + "]"
	if status, _, body := post(t, h, full, nil); status != http.StatusOK || strings.Count(body, `"result"`) != MaxBatch {
		t.Fatalf("a full batch: %d %s", status, body)
	}
}

func TestInitializeNegotiation(t *testing.T) {
	s := newTestServer(t, Options{}, echoTool())
	for ask, want := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
		"1999-01-01": "2025-11-25", "2026-07-28": "2025-11-25",
	} {
		out := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+ask+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		var r struct {
			Result struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Capabilities    json.RawMessage `json:"capabilities"`
			}
		}
		json.Unmarshal(out, &r)
		if r.Result.ProtocolVersion != want {
			t.Errorf("asked %s: got %s, want %s", ask, r.Result.ProtocolVersion, want)
		}
		if string(r.Result.Capabilities) != `{"tools":{},"logging":{}}` {
			t.Errorf("capabilities %s", r.Result.Capabilities)
		}
	}
}

func TestModernEraChecks(t *testing.T) {
	s := newTestServer(t, Options{}, echoTool())
	h := NewHTTPHandler(s, HTTPOptions{})
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"hi"},` + modernMeta + `}}`
	}
	tests := []struct {
		name       string
		body       string
		hdr        map[string]string
		wantStatus int
		wantCode   int
	}{
		{"missing _meta", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{}}`, modernHeaders("server/discover", ""), 400, CodeInvalidParams},
		{"missing clientCapabilities", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, modernHeaders("server/discover", ""), 400, CodeInvalidParams},
		{"version header mismatch", call("echo"), map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}, 400, CodeHeaderMismatch},
		{"missing Mcp-Method", call("echo"), map[string]string{"MCP-Protocol-Version": VersionModern, "Mcp-Name": "echo"}, 400, CodeHeaderMismatch},
		{"Mcp-Method mismatch", call("echo"), modernHeaders("tools/list", "echo"), 400, CodeHeaderMismatch},
		{"missing Mcp-Name", call("echo"), modernHeaders("tools/call", ""), 400, CodeHeaderMismatch},
		{"Mcp-Name mismatch", call("echo"), modernHeaders("tools/call", "other"), 400, CodeHeaderMismatch},
		{"unsupported version", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{"MCP-Protocol-Version": "v9", "Mcp-Method": "server/discover"}, 400, CodeUnsupportedProtocolVersion},
		{"unknown method", `{"jsonrpc":"2.0","id":11,"method":"nope",` + "\"params\":{" + modernMeta + `}}`, modernHeaders("nope", ""), 404, CodeMethodNotFound},
	}
	for _, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		tests = append(tests, struct {
			name       string
			body       string
			hdr        map[string]string
			wantStatus int
			wantCode   int
		}{"removed " + m, `{"jsonrpc":"2.0","id":11,"method":"` + m + `","params":{` + modernMeta + `}}`, modernHeaders(m, ""), 404, CodeMethodNotFound})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, h, tc.body, tc.hdr)
			r := decode(t, body)
			if status != tc.wantStatus || r.Error == nil || r.Error.Code != tc.wantCode || string(r.ID) != "11" {
				t.Fatalf("status %d body %s; want %d/%d", status, body, tc.wantStatus, tc.wantCode)
			}
			if tc.wantCode == CodeUnsupportedProtocolVersion && string(r.Error.Data) != `{"requested":"v9","supported":`+allVersions+`}` {
				t.Errorf("data %s", r.Error.Data)
			}
		})
	}
	t.Run("base64 Mcp-Name", func(t *testing.T) {
		status, _, body := post(t, h, call("echo"), modernHeaders("tools/call", "=?base64?ZWNobw==?="))
		if status != 200 || !strings.Contains(body, `"resultType":"complete"`) {
			t.Fatalf("status %d body %s", status, body)
		}
	})
	t.Run("discover", func(t *testing.T) {
		_, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, modernHeaders("server/discover", ""))
		for _, want := range []string{`"supportedVersions":` + allVersions, `"ttlMs":0`, `"cacheScope":"public"`, `"io.modelcontextprotocol/serverInfo":{"name":"test","version":"0.1"}`, `"resultType":"complete"`} {
			if !strings.Contains(body, want) {
				t.Errorf("discover lacks %s: %s", want, body)
			}
		}
	})
}

// allVersions is what server/discover lists, and what an unsupported
// version error offers in data.supported: every version served.
const allVersions = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]`

func TestModernLogAndCapability(t *testing.T) {
	logTool := Tool{Name: "log", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		req.Log(ctx, "info", "t", "hello")
		return TextResult("ok"), nil
	}}
	askTool := Tool{Name: "ask", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		if _, err := req.Sample(ctx, "s", map[string]any{"maxTokens": 1}); err != nil {
			return nil, err
		}
		return TextResult("ok"), nil
	}}
	h := NewHTTPHandler(newTestServer(t, Options{}, logTool, askTool), HTTPOptions{})
	body := func(name, meta string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}` + meta + `}}}`
	}
	_, hdr, out := post(t, h, body("log", ""), modernHeaders("tools/call", "log"))
	if strings.Contains(out, "notifications/message") || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("log sent without logLevel: %s", out)
	}
	_, hdr, out = post(t, h, body("log", `,"io.modelcontextprotocol/logLevel":"debug"`), modernHeaders("tools/call", "log"))
	if !strings.Contains(out, "notifications/message") || hdr.Get("Content-Type") != "text/event-stream" || hdr.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("log not streamed: %v %s", hdr, out)
	}
	status, _, out := post(t, h, body("ask", ""), modernHeaders("tools/call", "ask"))
	r := decode(t, out)
	if status != 400 || r.Error == nil || r.Error.Code != CodeMissingRequiredCapability || string(r.Error.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Fatalf("missing capability: %d %s", status, out)
	}
}

func scopedServer(t testing.TB, hidden *sync.Map) *Server {
	mk := func(name string, scopes ...string) Tool {
		tl := echoTool()
		tl.Name, tl.Scopes = name, scopes
		return tl
	}
	return newTestServer(t, Options{ToolVisible: func(ctx context.Context, name string) (bool, error) {
		_, h := hidden.Load(name)
		return !h, nil
	}}, mk("read_a", "a:read"), mk("write_a", "a:read", "a:write"), mk("open"))
}

func listNames(t testing.TB, h http.Handler, hdr map[string]string) ([]string, string) {
	_, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr)
	var r struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	json.Unmarshal([]byte(body), &r)
	var out []string
	for _, tl := range r.Result.Tools {
		out = append(out, tl.Name)
	}
	return out, body
}

func withPrincipal(h http.Handler, p Principal) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

func TestScopesVisibilityAndNarrowing(t *testing.T) {
	var hidden sync.Map
	s := scopedServer(t, &hidden)
	base := NewHTTPHandler(s, HTTPOptions{ResourceMetadataURL: "https://x/.well-known/oauth-protected-resource/mcp"})

	if got, _ := listNames(t, base, nil); strings.Join(got, ",") != "read_a,write_a,open" {
		t.Fatalf("no principal: %v", got)
	}
	reader := withPrincipal(base, Principal{UserID: "u1", Scopes: []string{"a:read"}})
	if got, _ := listNames(t, reader, nil); strings.Join(got, ",") != "read_a,open" {
		t.Fatalf("reader: %v", got)
	}
	hidden.Store("read_a", true)
	if got, _ := listNames(t, reader, nil); strings.Join(got, ",") != "open" {
		t.Fatalf("visibility hook not applied on next call: %v", got)
	}
	callBody := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"x"}}}`
	}
	_, _, out := post(t, reader, callBody("read_a"), nil)
	if r := decode(t, out); r.Error == nil || r.Error.Code != CodeInvalidParams || r.Error.Message != "Unknown tool: read_a" {
		t.Fatalf("hidden tool: %s", out)
	}
	hidden.Delete("read_a")
	status, hdr, out := post(t, reader, callBody("write_a"), nil)
	r := decode(t, out)
	if status != 200 || r.Error == nil || r.Error.Code != CodeInsufficientScope || string(r.Error.Data) != `{"requiredScopes":["a:read","a:write"]}` {
		t.Fatalf("out of scope (api key): %d %s", status, out)
	}
	if hdr.Get("WWW-Authenticate") != "" {
		t.Fatalf("non-OAuth principal got a challenge")
	}
	oauth := withPrincipal(base, Principal{UserID: "u1", Scopes: []string{"a:read"}, OAuth: true})
	status, hdr, _ = post(t, oauth, callBody("write_a"), nil)
	want := `Bearer error="insufficient_scope", scope="a:read a:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`
	if status != http.StatusForbidden || hdr.Get("WWW-Authenticate") != want {
		t.Fatalf("OAuth out of scope: %d %q", status, hdr.Get("WWW-Authenticate"))
	}
	writer := withPrincipal(base, Principal{UserID: "u2", Scopes: []string{"a:read", "a:write"}})
	for hv, wantList := range map[string]string{
		"a:read":          "read_a,open",
		"a:read, a:write": "read_a,write_a,open",
		"a:read,b:admin":  "read_a,open", // unknown tokens are dropped, never added
		"a:read \"x":      "open",        // malformed: no scopes
		" , ":             "open",        // empty after parse: no scopes
	} {
		got, _ := listNames(t, writer, map[string]string{"X-Mcp-Scopes": hv})
		if strings.Join(got, ",") != wantList {
			t.Errorf("x-mcp-scopes %q: %v, want %s", hv, got, wantList)
		}
	}
	_, _, out = post(t, writer, callBody("write_a"), map[string]string{"X-Mcp-Scopes": "a:read"})
	if r := decode(t, out); r.Error == nil || r.Error.Code != CodeInsufficientScope {
		t.Fatalf("narrowed call: %s", out)
	}
	_, _, out = post(t, writer, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, modernHeaders("tools/list", ""))
	if !strings.Contains(out, `"cacheScope":"private"`) {
		t.Fatalf("scoped list must be private: %s", out)
	}
}

func TestRequireScopes(t *testing.T) {
	if err := RequireScopes(context.Background(), "x"); err != nil {
		t.Fatal("no principal must mean no check")
	}
	ctx := WithPrincipal(context.Background(), Principal{Scopes: []string{"a"}})
	var e *Error
	if err := RequireScopes(ctx, "a", "b"); !errors.As(err, &e) || e.Code != CodeInsufficientScope {
		t.Fatalf("got %v", err)
	}
	if RequireScopes(ctx, "a") != nil {
		t.Fatal("granted scope rejected")
	}
}

func TestConstructionFailures(t *testing.T) {
	ok := echoTool()
	bad := func(mut func(*Tool)) Tool { tl := echoTool(); mut(&tl); return tl }
	cases := map[string]Catalog{
		"duplicate":      {Tools: []Tool{ok, ok}},
		"long name":      {Tools: []Tool{bad(func(t *Tool) { t.Name = strings.Repeat("a", 65) })}},
		"bad characters": {Tools: []Tool{bad(func(t *Tool) { t.Name = "has space" })}},
		"empty name":     {Tools: []Tool{bad(func(t *Tool) { t.Name = "" })}},
		"bad schema": {Tools: []Tool{bad(func(t *Tool) {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)
		})}},
		"not object": {Tools: []Tool{bad(func(t *Tool) { t.InputSchema = json.RawMessage(`{"type":"string"}`) })}},
		"remote ref": {Tools: []Tool{bad(func(t *Tool) {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)
		})}},
		"bad output":   {Tools: []Tool{bad(func(t *Tool) { t.OutputSchema = json.RawMessage(`{"type":7}`) })}},
		"nil handler":  {Tools: []Tool{bad(func(t *Tool) { t.Handler = nil })}},
		"dangling ui":  {Tools: []Tool{bad(func(t *Tool) { t.Meta = map[string]any{"ui": map[string]any{"resourceUri": "ui://app/view"}} })}},
		"dup prompt":   {Prompts: []Prompt{{Name: "p"}, {Name: "p"}}},
		"bad template": {ResourceTemplates: []ResourceTemplate{{URITemplate: "x://{", Name: "t"}}},
	}
	for name, cat := range cases {
		if _, err := NewServer(Implementation{Name: "t", Version: "1"}, Options{}, cat); err == nil {
			t.Errorf("%s: construction succeeded", name)
		}
	}
	withUI := bad(func(t *Tool) { t.Meta = map[string]any{"ui": map[string]any{"resourceUri": "ui://app/view"}} })
	if _, err := NewServer(Implementation{Name: "t", Version: "1"}, Options{}, Catalog{Tools: []Tool{withUI},
		Resources: []Resource{{URI: "ui://app/view", Name: "view", MIMEType: "text/html;profile=mcp-app"}}}); err != nil {
		t.Fatalf("registered ui resource rejected: %v", err)
	}
}

func callTool(t testing.TB, s *Server, name, args string) (rpcResp, CallToolResultWire) {
	t.Helper()
	out := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`))
	r := decode(t, string(out))
	var res CallToolResultWire
	if r.Result != nil {
		json.Unmarshal(r.Result, &res)
	}
	return r, res
}

// CallToolResultWire decodes a tools/call result in tests.
type CallToolResultWire struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func TestPipelineOrder(t *testing.T) {
	var steps []string
	var mu sync.Mutex
	step := func(s string) { mu.Lock(); steps = append(steps, s); mu.Unlock() }
	tool := echoTool()
	tool.NeedsApproval = func(ctx context.Context, args json.RawMessage) bool { step("needs-approval"); return true }
	tool.Handler = func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		step("execute:" + string(req.Arguments))
		return TextResult("raw"), nil
	}
	approve := true
	s := newTestServer(t, Options{
		Guardrails: []Guardrail{{
			Name: "rewrite",
			OnCall: func(ctx context.Context, tl *Tool, args json.RawMessage) (GuardVerdict, error) {
				step("guard")
				if strings.Contains(string(args), "forbidden") {
					return GuardVerdict{Block: true, Reason: "no forbidden words"}, nil
				}
				return GuardVerdict{Args: json.RawMessage(`{"text":"rewritten"}`)}, nil
			},
			OnResult: func(ctx context.Context, tl *Tool, args json.RawMessage, res *CallToolResult) (*CallToolResult, error) {
				step("result-guard")
				return TextResult("filtered"), nil
			},
		}},
		Approve: func(ctx context.Context, tl *Tool, args json.RawMessage) (bool, error) {
			step("approve")
			return approve, nil
		},
	}, tool)

	_, res := callTool(t, s, "echo", `{"text":"hi"}`)
	if got := strings.Join(steps, " "); got != `guard needs-approval approve execute:{"text":"rewritten"} result-guard` || res.Content[0].Text != "filtered" {
		t.Fatalf("order: %s; result %+v", got, res)
	}
	steps = nil
	_, res = callTool(t, s, "echo", `{"text":5,"n":0,"extra":true}`)
	if len(steps) != 0 || !res.IsError {
		t.Fatalf("invalid arguments reached %v", steps)
	}
	for _, want := range []string{"/text", "/n", "extra"} {
		if !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("violations do not mention %s: %s", want, res.Content[0].Text)
		}
	}
	steps = nil
	_, res = callTool(t, s, "echo", `{"text":"forbidden"}`)
	if !res.IsError || res.Content[0].Text != "Blocked by guardrail 'rewrite': no forbidden words" || strings.Join(steps, " ") != "guard" {
		t.Fatalf("block: %v %+v", steps, res)
	}
	steps, approve = nil, false
	_, res = callTool(t, s, "echo", `{"text":"hi"}`)
	if !res.IsError || strings.Contains(strings.Join(steps, " "), "execute") {
		t.Fatalf("denied call ran: %v", steps)
	}
	s2 := newTestServer(t, Options{}, tool)
	steps = nil
	_, res = callTool(t, s2, "echo", `{"text":"hi"}`)
	if !res.IsError || strings.Contains(strings.Join(steps, " "), "execute") {
		t.Fatalf("call without approver ran: %v", steps)
	}
}

func TestHandlerErrorsTimeoutAndPanic(t *testing.T) {
	mk := func(name string, timeout time.Duration, f ToolHandler) Tool {
		return Tool{Name: name, Timeout: timeout, Handler: f}
	}
	s := newTestServer(t, Options{},
		mk("protocol", 0, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			return nil, fmt.Errorf("wrapped: %w", NewError(-31000, "custom failure", map[string]any{"k": 1}))
		}),
		mk("plain", 0, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			return nil, errors.New("deck not found")
		}),
		mk("slow", 20*time.Millisecond, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
		mk("boom", 0, func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			panic("secret internal detail")
		}),
	)
	r, _ := callTool(t, s, "protocol", `{}`)
	if r.Error == nil || r.Error.Code != -31000 || string(r.Error.Data) != `{"k":1}` {
		t.Fatalf("protocol error: %+v", r.Error)
	}
	_, res := callTool(t, s, "plain", `{}`)
	if !res.IsError || res.Content[0].Text != "deck not found" {
		t.Fatalf("plain error: %+v", res)
	}
	_, res = callTool(t, s, "slow", `{}`)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "timed out after 20ms") {
		t.Fatalf("timeout: %+v", res)
	}
	out := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`))
	if bytes.Contains(out, []byte("secret")) || bytes.Contains(out, []byte("goroutine")) || bytes.Contains(out, []byte(".go:")) || !bytes.Contains(out, []byte("Internal error (ref ")) {
		t.Fatalf("panic leaked or not reported: %s", out)
	}
}

func TestStdioCancellation(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan struct{})
	s := newTestServer(t, Options{}, Tool{Name: "wait", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}})
	inR, inW := io.Pipe()
	var out bytes.Buffer
	var mu sync.Mutex
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), s, inR, lockedWriter{&mu, &out}) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"wait"}}`+"\n")
	<-started
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`+"\n")
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the handler")
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if out.Len() != 0 {
		t.Fatalf("a cancelled request was answered: %s", out.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestMRTRState(t *testing.T) {
	s := newTestServer(t, Options{StateKey: []byte("k")}, Tool{Name: "ask", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		res, err := req.Ask(ctx, map[string]InputRequest{"q": ElicitationRequest(ElicitParams{Message: "?", RequestedSchema: map[string]any{"type": "object"}})}, []byte("st"))
		if err != nil {
			return nil, err
		}
		return TextResult(string(req.State()) + ":" + string(res["q"])), nil
	}})
	h := NewHTTPHandler(s, HTTPOptions{})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	_, _, out := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",`+meta+`}}`, modernHeaders("tools/call", "ask"))
	var first struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		}
	}
	json.Unmarshal([]byte(out), &first)
	if first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
		t.Fatalf("first round: %s", out)
	}
	retry := func(state string) string {
		_, _, out := post(t, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","inputResponses":{"q":{"action":"accept","content":{}}},"requestState":"`+state+`",`+meta+`}}`, modernHeaders("tools/call", "ask"))
		return out
	}
	if out := retry(first.Result.RequestState); !strings.Contains(out, `st:{\"action\":\"accept\",\"content\":{}}`) {
		t.Fatalf("retry: %s", out)
	}
	if r := decode(t, retry(first.Result.RequestState+"x")); r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Fatalf("tampered state accepted")
	}
	other := newTestServer(t, Options{StateKey: []byte("other")}, echoTool())
	if _, ok := other.verifyState("tools/call", "ask", "", nil, first.Result.RequestState); ok {
		t.Fatal("state verified under another key")
	}
}

// TestMRTRStateBindsArguments: a requestState is good only for the
// arguments it was minted with (the same ones re-encoded in another key
// order and spacing pass); other arguments, or none, are refused, so a
// person's answer to one call cannot be replayed on another.
func TestMRTRStateBindsArguments(t *testing.T) {
	s := newTestServer(t, Options{StateKey: []byte("k")}, Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		res, err := req.Ask(ctx, map[string]InputRequest{"q": ElicitationRequest(ElicitParams{Message: "?", RequestedSchema: map[string]any{"type": "object"}})}, []byte("st"))
		if err != nil {
			return nil, err
		}
		return TextResult("ran with " + string(res["q"])), nil
	}})
	h := NewHTTPHandler(s, HTTPOptions{})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	_, _, out := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"deckId":"a","n":1.50,"x":{"b":1,"a":[2,3]}},`+meta+`}}`, modernHeaders("tools/call", "ask"))
	var first struct {
		Result struct {
			RequestState string `json:"requestState"`
		}
	}
	json.Unmarshal([]byte(out), &first)
	if first.Result.RequestState == "" {
		t.Fatalf("first round: %s", out)
	}
	retry := func(args string) string {
		_, _, out := post(t, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask",`+args+`"inputResponses":{"q":{"action":"accept","content":{}}},"requestState":"`+first.Result.RequestState+`",`+meta+`}}`, modernHeaders("tools/call", "ask"))
		return out
	}
	if out := retry(`"arguments":{ "x":{"a":[2, 3],"b":1}, "n":1.50, "deckId":"a" },`); !strings.Contains(out, "ran with") {
		t.Fatalf("retry with the same arguments re-encoded: %s", out)
	}
	for _, args := range []string{`"arguments":{"deckId":"b","n":1.50,"x":{"b":1,"a":[2,3]}},`, `"arguments":{"deckId":"a","n":1.5,"x":{"b":1,"a":[2,3]}},`, ``} {
		if r := decode(t, retry(args)); r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("a state minted for other arguments was accepted with %q", args)
		}
	}
}

func TestHTTPTransportRules(t *testing.T) {
	browser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "setup page") })
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool()), HTTPOptions{MaxBodyBytes: 64, AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}, BrowserHandler: browser})
	do := func(method, host, origin, ctype, accept, body string) (*httptest.ResponseRecorder, *http.Request) {
		r := httptest.NewRequest(method, "http://"+host+"/mcp", strings.NewReader(body))
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w, r
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []struct {
		name                                string
		method, host, origin, ctype, accept string
		body                                string
		want                                int
	}{
		{"ok localhost", "POST", "localhost:9", "", "application/json", "", ping, 200},
		{"ok [::1]", "POST", "[::1]:9", "http://[::1]:9", "application/json; charset=utf-8", "", ping, 200},
		{"ok configured host", "POST", "mcp.example.com", "https://app.example.com", "application/json", "", ping, 200},
		{"bad host", "POST", "evil.example.com", "", "application/json", "", ping, http.StatusMisdirectedRequest},
		{"bad origin", "POST", "localhost", "http://evil.example.com", "application/json", "", ping, http.StatusForbidden},
		{"get", "GET", "localhost", "", "", "text/event-stream", "", http.StatusMethodNotAllowed},
		{"delete", "DELETE", "localhost", "", "", "", "", http.StatusMethodNotAllowed},
		{"browser get", "GET", "localhost", "", "", "text/html", "", 200},
		{"content type", "POST", "localhost", "", "text/plain", "", ping, http.StatusUnsupportedMediaType},
		{"too large", "POST", "localhost", "", "application/json", "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`, http.StatusRequestEntityTooLarge},
	}
	for _, tc := range cases {
		w, _ := do(tc.method, tc.host, tc.origin, tc.ctype, tc.accept, tc.body)
		if w.Code != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, w.Code, tc.want, w.Body.String())
		}
		if tc.want == http.StatusMethodNotAllowed && w.Header().Get("Allow") != "POST" {
			t.Errorf("%s: Allow %q", tc.name, w.Header().Get("Allow"))
		}
		if w.Header().Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: session id minted", tc.name)
		}
	}
}

func TestPagination(t *testing.T) {
	var tools []Tool
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		tl := echoTool()
		tl.Name = n
		tools = append(tools, tl)
	}
	s := newTestServer(t, Options{PageSize: 2}, tools...)
	var names []string
	cursor := ""
	for i := 0; i < 5; i++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		out := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`))
		var r struct {
			Result struct {
				Tools      []struct{ Name string }
				NextCursor string
			}
		}
		json.Unmarshal(out, &r)
		for _, tl := range r.Result.Tools {
			names = append(names, tl.Name)
		}
		if cursor = r.Result.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(names, "") != "abcde" {
		t.Fatalf("pages: %v", names)
	}
}
