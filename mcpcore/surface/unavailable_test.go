package surface_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// A service that is temporarily unavailable (the database away or busy) is
// answered with a JSON-RPC error saying so, with Retry-After and 503 over
// HTTP, not "internal error"; the mutation's audit row is still attempted.
func TestUnavailableIsRetryLater(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	down := &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is busy or unreachable; retry later",
		Err: errors.New("postgres: dial tcp 10.0.0.9:5432: i/o timeout")}
	f.expectTool(contracts.ToolCreateDeck, contracts.Deck{}, down).Times(2)
	var audited []contracts.AuditEvent
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e contracts.AuditEvent) error {
		audited = append(audited, e)
		return nil
	}).Times(2)

	_, rerr := f.call(as(contracts.AllScopes...), contracts.ToolCreateDeck, json.RawMessage(`{"name":"Geography"}`))
	if rerr == nil || rerr.Code != mcpcore.CodeInternalError || !strings.HasPrefix(rerr.Message, "Temporarily unavailable: retry in 5 seconds (ref ") ||
		!strings.Contains(string(rerr.Data), `"kind":"unavailable"`) || !strings.Contains(string(rerr.Data), `"retryAfterSeconds":5`) {
		t.Fatalf("got %+v, want a -32603 'Temporarily unavailable' error with kind and retryAfterSeconds", rerr)
	}
	if strings.Contains(rerr.Message, "10.0.0.9") || strings.Contains(rerr.Message, "postgres") {
		t.Errorf("the error leaks its cause: %s", rerr.Message)
	}

	h := mcpcore.NewHTTPHandler(f.srv, mcpcore.HTTPOptions{})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":"Geography"}}}`
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body)).WithContext(as(contracts.AllScopes...))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "5" || !strings.Contains(w.Body.String(), "Temporarily unavailable") {
		t.Errorf("HTTP: %d Retry-After %q %s; want 503, Retry-After 5", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	if len(audited) != 2 || audited[0].Outcome != contracts.AuditError || audited[0].ErrorKind != contracts.KindUnavailable {
		t.Errorf("audit rows %+v, want two failed unavailable rows", audited)
	}
}
