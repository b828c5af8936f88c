package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// The undo tests' helpers: an agent connected through MCP, its deck and
// what the tests compare of it, the audit trail, and the audit page's
// Undo buttons in a browser.

// agentEnv starts the service on db and connects an agent with the
// official Go SDK client on a trusted key with every scope; it returns
// the env, the client session and the key's id.
func agentEnv(t *testing.T, db string) (*env, *mcp.ClientSession, string) {
	t.Helper()
	e := newEnv(t, db, nil)
	key, keyID := e.trustedKey(t, contracts.AllScopes...)
	return e, connect(t, e.base+"/mcp", bearer(key), ""), keyID
}

// deckCards reads every card of a deck through search_cards, by id.
func deckCards(t *testing.T, cs *mcp.ClientSession, deckID string) map[string]contracts.Card {
	t.Helper()
	out := map[string]contracts.Card{}
	cursor := ""
	for {
		args := map[string]any{"deckId": deckID, "limit": contracts.MaxSearchResults}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page contracts.CardPage
		call(t, cs, contracts.ToolSearchCards, args, &page)
		for _, c := range page.Items {
			out[c.ID] = c
		}
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}

// agentDeck makes a deck of n cards through MCP and returns it with the
// cards' ids in order.
func agentDeck(t *testing.T, cs *mcp.ClientSession, name string, n int) (contracts.Deck, []string) {
	t.Helper()
	var deck contracts.Deck
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": name}, &deck)
	cards := make([]map[string]any, n)
	for i := range cards {
		cards[i] = map[string]any{"front": fmt.Sprintf("front %d", i), "back": fmt.Sprintf("back %d", i), "tags": []string{"orig"}}
	}
	var added contracts.BulkResult
	call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards}, &added)
	ids := make([]string, n)
	for i, it := range added.Items {
		if it.Status != contracts.OutcomeCreated {
			t.Fatalf("card %d: %+v", i, it)
		}
		ids[i] = it.ID
	}
	return deck, ids
}

// lastOperation returns the operation id of the newest audit row of tool.
func lastOperation(t *testing.T, e *env, tool string) string {
	t.Helper()
	events, err := e.app.AuditTrail(context.Background(), testUser, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Tool == tool && ev.Outcome == contracts.AuditOK {
			if ev.OperationID == "" {
				t.Fatalf("the %s audit row has no operation id", tool)
			}
			return ev.OperationID
		}
	}
	t.Fatalf("no %s audit row", tool)
	return ""
}

// resultOperation returns the operation id a mutating call's result
// carries (structuredContent's operationId, repeated in its text), what a
// model passes to undo_changes.
func resultOperation(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		OperationID string `json:"operationId"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.OperationID == "" {
		t.Fatalf("the result carries no operationId: %s", b)
	}
	if !strings.Contains(resultText(res), `"operationId":"`+r.OperationID+`"`) {
		t.Fatalf("the text content does not carry operationId %s: %s", r.OperationID, resultText(res))
	}
	return r.OperationID
}

// auditRows counts the audit rows of tool.
func auditRows(t *testing.T, e *env, tool string) int {
	t.Helper()
	events, err := e.app.AuditTrail(context.Background(), testUser, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range events {
		if ev.Tool == tool {
			n++
		}
	}
	return n
}

// deckStats is get_stats of a deck as JSON, its generation time left
// out, to compare whole.
func deckStats(t *testing.T, cs *mcp.ClientSession, deckID string) string {
	t.Helper()
	var s contracts.Stats
	call(t, cs, contracts.ToolGetStats, map[string]any{"deckId": deckID}, &s)
	s.GeneratedAt = time.Time{}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// deckSchedules is the schedule (the state, as JSON) of every card of a
// deck, by id.
func deckSchedules(t *testing.T, cs *mcp.ClientSession, deckID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for id, c := range deckCards(t, cs, deckID) {
		b, _ := json.Marshal(c.State)
		out[id] = string(b)
	}
	return out
}

// auditBrowser opens the audit page in a browser signed in as testUser.
func auditBrowser(t *testing.T, e *env) *browser {
	t.Helper()
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/audit")
	return b
}

// undoButton is the selector of the Undo button on the audit row of
// operation op; it fails the test, showing the page, when the page offers
// none (row names the row).
func (b *browser) undoButton(op, row string) string {
	b.t.Helper()
	sel := `form[action="/audit/undo"]:has(input[value="` + op + `"]) button`
	if !b.exists(sel) {
		b.t.Fatalf("no Undo on %s; the page says:\n%s", row, b.text())
	}
	return sel
}

// pressUndo presses the Undo button sel and checks that the page says
// "Undone: <undone>." and that the row offers Undo no more.
func (b *browser) pressUndo(sel, undone string) {
	b.t.Helper()
	b.submit(sel)
	if text := b.textOf(".flash"); !strings.Contains(text, "Undone: "+undone+".") {
		b.t.Fatalf("after Undo the page says %q", text)
	}
	if b.exists(sel) {
		b.t.Errorf("the undone row still offers Undo")
	}
}
