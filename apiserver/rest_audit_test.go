package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestRESTMutationsAudited: the web app's REST API writes, for each change,
// the audit row of the MCP tool that makes the same change (tool, action,
// affected ids, the web session as the credential, the request's id), on
// both databases, beside a refused change's error row.
func TestRESTMutationsAudited(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		cookies, csrf := e.signIn(t, testUser)
		h := http.Header{auth.CSRFHeader: {csrf}, "Origin": {e.base}}
		do := func(method, path string, body any, status int, out any) {
			t.Helper()
			resp, raw := e.request(t, method, path, body, h, cookies...)
			if resp.StatusCode != status {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, status, raw)
			}
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					t.Fatal(err)
				}
			}
		}
		var deck contracts.Deck
		do("POST", "/api/decks", map[string]any{"name": "REST"}, http.StatusCreated, &deck)
		var added contracts.BulkResult
		do("POST", "/api/decks/"+deck.ID+"/cards", map[string]any{"cards": []map[string]any{{"front": "a", "back": "b"}}}, http.StatusOK, &added)
		do("POST", "/api/cards/delete", map[string]any{"cardIds": []string{added.Items[0].ID}}, http.StatusOK, nil)
		do("PATCH", "/api/settings", map[string]any{"rolloverHour": 5}, http.StatusOK, nil)
		do("DELETE", "/api/decks/"+deck.ID, nil, http.StatusOK, nil)
		do("DELETE", "/api/decks/"+deck.ID, nil, http.StatusNotFound, nil)
		do("GET", "/api/decks", nil, http.StatusOK, nil)

		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			tool     string
			outcome  contracts.AuditOutcome
			affected string
		}
		var got []row
		for _, ev := range events {
			if ev.Tool == contracts.AuditSignIn {
				continue
			}
			def, ok := contracts.Tool(ev.Tool)
			if !ok || ev.Action != def.AuditAction || ev.RequestID == "" || ev.CredentialID == "" {
				t.Errorf("REST audit row %+v: want a tool's action, the request id and the web session", ev)
			}
			first := ""
			if len(ev.AffectedIDs) > 0 {
				first = ev.AffectedIDs[0]
			}
			got = append(got, row{ev.Tool, ev.Outcome, first})
		}
		slices.Reverse(got) // oldest first
		want := []row{
			{contracts.ToolCreateDeck, contracts.AuditOK, deck.ID},
			{contracts.ToolAddCards, contracts.AuditOK, deck.ID},
			{contracts.ToolDeleteCards, contracts.AuditOK, added.Items[0].ID},
			{contracts.ToolUpdateSettings, contracts.AuditOK, "settings"},
			{contracts.ToolDeleteDeck, contracts.AuditOK, deck.ID},
			{contracts.ToolDeleteDeck, contracts.AuditError, deck.ID},
		}
		if !slices.Equal(got, want) {
			t.Errorf("REST audit rows (tool, outcome, first affected id):\n got %v\nwant %v", got, want)
		}
	})
}
