package mcpcore_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/internal/conformance"
)

// sdkVersions are the protocol versions the official Go SDK v1.8.0 client
// negotiates (ClientSessionOptions.ProtocolVersion): 2026-07-28 through
// server/discover, the others through initialize. 2024-11-05 is asked for
// and must be answered with the latest handshake version.
var sdkVersions = []struct{ ask, want string }{
	{"2026-07-28", "2026-07-28"},
	{"2025-11-25", "2025-11-25"},
	{"2025-06-18", "2025-06-18"},
	{"2025-03-26", "2025-03-26"},
	{"2024-11-05", "2025-11-25"},
}

func newFixture(t testing.TB) *mcpcore.Server {
	t.Helper()
	srv, err := conformance.NewServer(mcpcore.Options{DefaultTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func sdkClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "sdk-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com", "name": "Ada"}}, nil
		},
	})
}

// exerciseSession lists and calls tools the way a client would.
func exerciseSession(t *testing.T, cs *mcp.ClientSession, wantVersion string) {
	t.Helper()
	ctx := context.Background()
	if got := cs.InitializeResult().ProtocolVersion; got != wantVersion {
		t.Fatalf("negotiated %q, want %q", got, wantVersion)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	if !names["test_simple_text"] || !names["json_schema_2020_12_tool"] {
		t.Fatalf("tools/list misses fixtures: %v", names)
	}
	// The fixture's default toolset leaves one tool out: not listed, and
	// unknown when called.
	if names[conformance.OutsideTool] {
		t.Fatalf("tools/list shows %s, outside the default toolset", conformance.OutsideTool)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: conformance.OutsideTool}); err == nil || !strings.Contains(err.Error(), "Unknown tool") {
		t.Fatalf("calling %s outside the default toolset: %v", conformance.OutsideTool, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "This is a simple text response for testing." || res.IsError {
		t.Fatalf("unexpected result %#v", res.Content[0])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil || !res.IsError {
		t.Fatalf("test_error_handling: err=%v isError=%v", err, res != nil && res.IsError)
	}
	// An argument error is a tool result the model can act on (SEP-1303).
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": 42}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "/prompt") {
		t.Fatalf("invalid arguments: err=%v res=%+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "Unknown tool") {
		t.Fatalf("unknown tool: err=%v", err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"id":"42"`) {
		t.Fatalf("ReadResource: %v %+v", err, rr)
	}
	// Asking the user mid-call: server-to-client request in the handshake
	// era, input_required + retry in the modern era.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation"})
	if err != nil {
		t.Fatalf("elicitation: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "Hello, Ada!" {
		t.Fatalf("elicitation result %q", got)
	}
}

func TestSDKClientStreamableHTTP(t *testing.T) {
	ts := httptest.NewServer(mcpcore.NewHTTPHandler(newFixture(t), mcpcore.HTTPOptions{}))
	defer ts.Close()
	for _, v := range sdkVersions {
		t.Run(v.ask, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := sdkClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: v.ask})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			exerciseSession(t, cs, v.want)
		})
	}
}

func TestSDKClientStdio(t *testing.T) {
	for _, v := range sdkVersions {
		t.Run(v.ask, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c2sR, c2sW := io.Pipe()
			s2cR, s2cW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := mcpcore.ServeStdio(ctx, newFixture(t), c2sR, s2cW)
				s2cW.Close()
				done <- err
			}()
			cs, err := sdkClient().Connect(ctx, &mcp.IOTransport{Reader: s2cR, Writer: c2sW}, &mcp.ClientSessionOptions{ProtocolVersion: v.ask})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			exerciseSession(t, cs, v.want)
			cs.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("ServeStdio: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("ServeStdio did not return after stdin closed")
			}
		})
	}
}
