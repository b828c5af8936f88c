package mcpcore

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A slow store (a handler that waits on the database until its context
// ends) is cut off by the tool's timeout: the caller gets an isError
// result naming the timeout, and no goroutine is left behind, over the
// engine and over HTTP.
func TestSlowStoreLeavesNothingBehind(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	slow := Tool{
		Name:    "slow",
		Timeout: 50 * time.Millisecond,
		Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
			select { // a store call honouring its context
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return TextResult("too late"), nil
			}
		},
	}
	s := newTestServer(t, Options{}, slow)
	for range 20 {
		_, res := callTool(t, s, "slow", `{}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, "timed out after 50ms") {
			t.Fatalf("slow tool: %+v", res)
		}
	}
	h := NewHTTPHandler(s, HTTPOptions{})
	code, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
		map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
	if code != 200 || !strings.Contains(body, "timed out") {
		t.Fatalf("over HTTP: %d %s", code, body)
	}
}
