package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// get_settings and update_settings over MCP with the official client:
// scopes, validation as a tool error, audit; and the web app's REST route.
func TestSettingsToolsAndRoute(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		reader, _ := e.key(t, contracts.ScopeDecksRead)
		rcs := connect(t, e.base+"/mcp", bearer(reader), "")
		names := toolNames(t, rcs)
		if !contains(names, "get_settings") || contains(names, "update_settings") {
			t.Fatalf("a decks:read key sees %v; want get_settings and not update_settings", names)
		}
		var s contracts.AccountSettings
		call(t, rcs, "get_settings", map[string]any{}, &s)
		if s.Timezone != "UTC" || s.RolloverHour != 4 || s.Today == "" {
			t.Errorf("new account settings = %+v, want UTC, 4 and today's date", s)
		}

		writer, keyID := e.key(t, contracts.ScopeDecksWrite, contracts.ScopeDecksRead)
		wcs := connect(t, e.base+"/mcp", bearer(writer), "")
		call(t, wcs, "update_settings", map[string]any{"timezone": "Pacific/Kiritimati", "rolloverHour": 3}, &s)
		if s.Timezone != "Pacific/Kiritimati" || s.RolloverHour != 3 {
			t.Errorf("after update_settings: %+v", s)
		}
		res, err := wcs.CallTool(context.Background(), &mcp.CallToolParams{Name: "update_settings", Arguments: map[string]any{"timezone": "Atlantis/Capital"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(resultText(res), "unknown timezone") {
			t.Errorf("a bad timezone gave %v: %s; want a tool error naming it", res.IsError, resultText(res))
		}
		res, err = wcs.CallTool(context.Background(), &mcp.CallToolParams{Name: "update_settings", Arguments: map[string]any{"rolloverHour": 24}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("rolloverHour 24 accepted: %s", resultText(res))
		}

		events, err := e.app.AuditTrail(context.Background(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for _, ev := range events {
			if ev.Tool == "get_settings" {
				t.Errorf("a read was audited: %+v", ev)
			}
			if ev.Tool == "update_settings" && ev.Action == "settings.update" && ev.CredentialID == keyID && ev.Outcome == contracts.AuditOK &&
				strings.Contains(string(ev.InputSummary), "Kiritimati") {
				ok++
			}
		}
		if ok != 1 {
			t.Errorf("found %d ok update_settings audit rows, want 1: %+v", ok, events)
		}

		// The web app reads and changes the same settings.
		cookies, csrf := e.signIn(t, testUser)
		resp, body := e.request(t, http.MethodGet, "/api/settings", nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &s) != nil || s.Timezone != "Pacific/Kiritimati" {
			t.Fatalf("GET /api/settings: %d %s", resp.StatusCode, body)
		}
		h := http.Header{auth.CSRFHeader: {csrf}}
		resp, body = e.request(t, http.MethodPatch, "/api/settings", map[string]any{"timezone": "America/New_York"}, h, cookies...)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &s) != nil || s.Timezone != "America/New_York" || s.RolloverHour != 3 {
			t.Fatalf("PATCH /api/settings: %d %s", resp.StatusCode, body)
		}
		resp, body = e.request(t, http.MethodPatch, "/api/settings", map[string]any{"timezone": "Nowhere"}, h, cookies...)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "unknown timezone") {
			t.Errorf("PATCH with a bad timezone: %d %s, want 400 with the reason", resp.StatusCode, body)
		}
		resp, body = e.request(t, http.MethodPatch, "/api/settings", map[string]any{"colour": "blue"}, h, cookies...)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("PATCH with an unknown field: %d %s, want 400", resp.StatusCode, body)
		}
		// An agent's key is refused on the REST route.
		resp, _ = e.request(t, http.MethodGet, "/api/settings", nil, bearer(writer))
		if resp.StatusCode == http.StatusOK {
			t.Errorf("an API key read /api/settings")
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
