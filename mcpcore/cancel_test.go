package mcpcore

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestInflightRegistry(t *testing.T) {
	r := newInflightRegistry()
	var got []string
	entry := func(name, scope, id string) *inflightCall {
		return &inflightCall{scope: scope, id: []byte(id), cancel: func(cause error) {
			if !errors.Is(cause, errClientCancelled) {
				t.Errorf("%s: cause %v", name, cause)
			}
			got = append(got, name)
		}}
	}
	a, b, c := entry("a", "s", "1"), entry("b", "s", "1"), entry("c", "s", "1")
	other, elsewhere := entry("other", "s", "2"), entry("elsewhere", "t", "1")
	for _, e := range []*inflightCall{a, b, c, other, elsewhere} {
		r.add(e)
	}
	r.remove(b) // middle of the chain
	r.cancel("s", []byte("1"))
	if len(got) != 2 || !(got[0] == "a" && got[1] == "c" || got[0] == "c" && got[1] == "a") {
		t.Fatalf("cancelled %v, want a and c", got)
	}
	for _, e := range []*inflightCall{a, c, other, elsewhere} {
		r.remove(e)
	}
	if len(r.m) != 0 {
		t.Fatalf("registry not empty: %v", r.m)
	}
	got = nil
	r.cancel("s", []byte("1"))
	if got != nil {
		t.Fatalf("cancelled after removal: %v", got)
	}
}

// TestHTTPCancellation: in the handshake era a notifications/cancelled POST
// stops the running calls with that id (all of them), and only those.
func TestHTTPCancellation(t *testing.T) {
	var started sync.WaitGroup
	started.Add(3)
	s := newTestServer(t, Options{}, Tool{Name: "wait", Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		started.Done()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return TextResult("finished"), nil
		}
	}})
	h := NewHTTPHandler(s, HTTPOptions{})
	hdr := map[string]string{"MCP-Protocol-Version": VersionLatestHandshake}
	type result struct {
		id     string
		status int
		body   string
	}
	results := make(chan result, 3)
	for _, id := range []string{"7", "7", "8"} {
		go func() {
			status, _, body := post(t, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"wait"}}`, hdr)
			results <- result{id, status, body}
		}()
	}
	started.Wait()
	if status, _, _ := post(t, h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, hdr); status != http.StatusAccepted {
		t.Fatalf("cancel: status %d", status)
	}
	for range 3 {
		r := <-results
		switch r.id {
		case "7":
			// HTTP must answer the POST: an error, never the tool's result.
			if r.status != http.StatusOK || !strings.Contains(r.body, `"request cancelled by the client"`) {
				t.Errorf("cancelled call answered: %d %s", r.status, r.body)
			}
		case "8":
			if r.status != http.StatusOK || decode(t, r.body).Error != nil {
				t.Errorf("other call: %d %s", r.status, r.body)
			}
		}
	}
	if len(s.inflight.m) != 0 {
		t.Fatalf("registry not empty after the calls: %v", s.inflight.m)
	}
}
