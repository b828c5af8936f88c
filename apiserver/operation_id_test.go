package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestAuditRowsCarryOperationIDs: every mutation's audit row carries an
// operation id of its own, whichever door it came through (an MCP tool
// call with the official Go SDK client, failed or not; a REST request; a
// page form), on both databases; rows that change nothing (a sign-in)
// carry none.
func TestAuditRowsCarryOperationIDs(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Ops"}, &deck)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "a", "back": "b"}}}, nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolDeleteDeck,
			Arguments: map[string]any{"deckId": "0190d5a0-0000-7000-8000-000000000000"}})
		if err != nil || !res.IsError {
			t.Fatalf("delete_deck of an unknown deck: %v, %+v; want an isError result", err, res)
		}
		cookies, csrf := e.signIn(t, testUser)
		if resp, body := e.request(t, "PATCH", "/api/settings", map[string]any{"rolloverHour": 5},
			http.Header{auth.CSRFHeader: {csrf}, "Origin": {e.base}}, cookies...); resp.StatusCode != http.StatusOK {
			t.Fatalf("PATCH /api/settings: %d %s", resp.StatusCode, body)
		}
		if resp, body := e.postForm(t, "/decks", url.Values{"name": {"From the page"}, auth.CSRFField: {csrf}},
			http.Header{"Origin": {e.base}}, cookies...); resp.StatusCode >= 400 {
			t.Fatalf("POST /decks: %d %s", resp.StatusCode, body)
		}

		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		tools := map[string]bool{}
		for _, ev := range events {
			if ev.Tool == contracts.AuditSignIn {
				if ev.OperationID != "" {
					t.Errorf("the sign-in row carries operation id %q", ev.OperationID)
				}
				continue
			}
			tools[ev.Tool] = true
			if ev.OperationID == "" {
				t.Errorf("audit row %s (%s) has no operation id", ev.Tool, ev.Outcome)
			} else if other, dup := seen[ev.OperationID]; dup {
				t.Errorf("audit rows %s and %s share operation id %s", other, ev.Tool, ev.OperationID)
			}
			seen[ev.OperationID] = ev.Tool
		}
		for _, want := range []string{contracts.ToolCreateDeck, contracts.ToolAddCards, contracts.ToolDeleteDeck, contracts.ToolUpdateSettings} {
			if !tools[want] {
				t.Errorf("no audit row of %s among %v", want, tools)
			}
		}
		if len(seen) != 5 {
			t.Errorf("%d operation ids on the audit rows, want 5 (three tool calls, a REST and a page change)", len(seen))
		}
	})
}
