package mcpcore

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStdioReturnsAfterStdinCloses: in-flight work gets StdioDrainTimeout
// after stdin closes, then is cancelled, and ServeStdio returns.
func TestStdioReturnsAfterStdinCloses(t *testing.T) {
	defer func(d time.Duration) { StdioDrainTimeout = d }(StdioDrainTimeout)
	StdioDrainTimeout = 100 * time.Millisecond
	var cancelled atomic.Bool
	s := newTestServer(t, Options{}, Tool{Name: "hang", Handler: func(ctx context.Context, _ *CallRequest) (*CallToolResult, error) {
		<-ctx.Done()
		cancelled.Store(true)
		return nil, ctx.Err()
	}})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang"}}` + "\n")
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), s, in, io.Discard) }()
	select {
	case err := <-done:
		if err != nil || !cancelled.Load() {
			t.Fatalf("ServeStdio = %v, handler cancelled = %v", err, cancelled.Load())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after stdin closed")
	}

	// A quick call piped in and stdin closed at once still gets its answer.
	var out strings.Builder
	in = strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n")
	if err := ServeStdio(context.Background(), newTestServer(t, Options{}, echoTool()), in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":2`) || strings.Contains(out.String(), `"error"`) {
		t.Fatalf("piped call: %s", out.String())
	}
}

// TestStdioInitializeRunsInOrder: a batch right behind initialize is judged
// by the version initialize negotiated (batches only for 2025-03-26).
func TestStdioInitializeRunsInOrder(t *testing.T) {
	s := newTestServer(t, Options{}, echoTool())
	var out strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]` + "\n")
	if err := ServeStdio(context.Background(), s, in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "-32600") {
		t.Fatalf("a batch after a 2025-11-25 initialize must be refused:\n%s", out.String())
	}
}

// TestHandshakeDisconnectIsNotCancellation: in the handshake era a client
// that goes away does not cancel the call; in the modern era it does.
func TestHandshakeDisconnectIsNotCancellation(t *testing.T) {
	for _, tc := range []struct {
		version    string
		headers    map[string]string
		wantCancel bool
	}{
		{VersionLatestHandshake, map[string]string{"MCP-Protocol-Version": VersionLatestHandshake}, false},
		{VersionModern, modernHeaders("tools/call", "wait"), true},
	} {
		ended := make(chan bool, 1)
		s := newTestServer(t, Options{}, Tool{Name: "wait", Handler: func(ctx context.Context, _ *CallRequest) (*CallToolResult, error) {
			select {
			case <-ctx.Done():
				ended <- true
			case <-time.After(300 * time.Millisecond):
				ended <- false
			}
			return TextResult("done"), nil
		}})
		srv := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{}))
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`
		if tc.version == VersionModern {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		if got := <-ended; got != tc.wantCancel {
			t.Errorf("%s: handler cancelled by the disconnect = %v, want %v", tc.version, got, tc.wantCancel)
		}
		srv.Close()
	}
}

// TestHandshakeMissingCapability: -32021 (and its 400) belong to the
// modern era; a handshake-era client gets -32602.
func TestHandshakeMissingCapability(t *testing.T) {
	s := newTestServer(t, Options{}, Tool{Name: "ask", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		_, err := req.Elicit(ctx, "q", ElicitParams{Message: "name?"})
		return nil, err
	}})
	var out strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}` + "\n")
	if err := ServeStdio(context.Background(), s, in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":2,"error":{"code":-32602`) {
		t.Fatalf("want -32602 for the undeclared elicitation capability:\n%s", out.String())
	}
}

// TestStdioStopsWhenContextEnds: serving stops when ctx ends even while
// stdin is quiet (the apiserver cancels it when the key is revoked).
func TestStdioStopsWhenContextEnds(t *testing.T) {
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, newTestServer(t, Options{}, echoTool()), in, io.Discard) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("ServeStdio returned nil after its context ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio kept waiting on a quiet stdin after its context ended")
	}
}
