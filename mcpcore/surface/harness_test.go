package surface_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
	"github.com/takhtabush/takhtabush/ports/mock"
)

// fixture is an engine serving the surface over a gomock McpServices.
type fixture struct {
	t    *testing.T
	ctrl *gomock.Controller
	svc  *mock.MockMcpServices
	srv  *mcpcore.Server
	logs *bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, surface.Config{})
}

// newFixtureWith is newFixture with cfg's ids (an operation id for each
// mutating call).
func newFixtureWith(t *testing.T, cfg surface.Config) *fixture {
	t.Helper()
	ctrl := gomock.NewController(t)
	svc := mock.NewMockMcpServices(ctrl)
	logs := &bytes.Buffer{}
	srv, err := surface.NewServer(svc, surface.Config{
		BaseURL: "https://tb.example", Version: "test",
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
		IDs:    cfg.IDs,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Atomic runs fn as a transaction would, marking its ctx (inTx
	// tells): a transaction whose context ended cannot commit.
	svc.EXPECT().Atomic(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
		if err := fn(context.WithValue(ctx, txKey{}, true)); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the request was canceled or timed out", Err: err}
		}
		return nil
	}).AnyTimes()
	return &fixture{t: t, ctrl: ctrl, svc: svc, srv: srv, logs: logs}
}

// txKey marks a context inside the fixture's Atomic.
type txKey struct{}

// inTx says whether ctx is inside Atomic.
func inTx(ctx context.Context) bool { return ctx.Value(txKey{}) != nil }

// exposure makes every Exposure read return s. The fixture's account
// chose every toolset unless s names some, and asks for no confirmation
// unless s sets thresholds (the confirmation tests do).
func (f *fixture) exposure(s contracts.ExposureSettings) {
	if s.Toolsets == nil {
		s.Toolsets = []string{contracts.ToolsetsAll}
	}
	if s.Confirm == nil {
		s.Confirm = &contracts.ConfirmThresholds{}
	}
	f.svc.EXPECT().Exposure(gomock.Any()).Return(s, nil).AnyTimes()
}

// as returns a context acting for user u1 through API key k1 with scopes.
func as(scopes ...contracts.Scope) context.Context {
	p := contracts.Principal{UserID: "u1", Scopes: scopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: "k1"}
	ctx := contracts.WithPrincipal(context.Background(), p)
	return mcpcore.WithPrincipal(ctx, mcpcore.Principal{UserID: p.UserID, Scopes: contracts.ScopeStrings(scopes),
		CredentialKind: string(p.CredentialKind), CredentialID: p.CredentialID})
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func (f *fixture) rpc(ctx context.Context, method string, params any) response {
	f.t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	out := f.srv.Handle(ctx, msg)
	var r response
	if err := json.Unmarshal(out, &r); err != nil {
		f.t.Fatalf("%s: response is not JSON: %v\n%s", method, err, out)
	}
	return r
}

func (f *fixture) listTools(ctx context.Context) []string {
	f.t.Helper()
	r := f.rpc(ctx, "tools/list", map[string]any{})
	if r.Error != nil {
		f.t.Fatalf("tools/list: %+v", r.Error)
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		f.t.Fatal(err)
	}
	if res.NextCursor != "" {
		f.t.Fatalf("the catalog should fit one page")
	}
	names := []string{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func (f *fixture) call(ctx context.Context, tool string, args json.RawMessage) (toolResult, *rpcError) {
	f.t.Helper()
	r := f.rpc(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	if r.Error != nil {
		return toolResult{}, r.Error
	}
	var res toolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		f.t.Fatal(err)
	}
	return res, nil
}

// expectTool records one call of the tool's port method returning result, err.
func (f *fixture) expectTool(tool string, result any, err error) *gomock.Call {
	return f.ctrl.RecordCall(f.svc, camel(tool), gomock.Any(), gomock.Any()).Return(result, err)
}

func camel(snake string) string {
	var b []byte
	up := true
	for i := 0; i < len(snake); i++ {
		c := snake[i]
		if c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b = append(b, c)
	}
	return string(b)
}

func without(scopes []contracts.Scope, drop ...contracts.Scope) []contracts.Scope {
	return slices.DeleteFunc(slices.Clone(scopes), func(s contracts.Scope) bool { return slices.Contains(drop, s) })
}

// httpServer serves the surface over the engine's HTTP handler, acting for
// the principal that ctxFor gives.
func (f *fixture) httpServer(ctxFor func(*http.Request) context.Context) *httptest.Server {
	h := mcpcore.NewHTTPHandler(f.srv, mcpcore.HTTPOptions{RequestContext: ctxFor})
	s := httptest.NewServer(h)
	f.t.Cleanup(s.Close)
	return s
}

func postRPC(t *testing.T, url string, header http.Header, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

var _ = fmt.Sprint
