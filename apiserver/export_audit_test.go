package apiserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// Exports are the one audited read: they hand data out of the account
// (issue 30, item 4: export_deck wrote no audit row, so a read-only key
// could take a deck with its history unseen). export_deck over MCP, even
// with a read-only key of an account in read-only mode, and the web page's
// export each leave a row naming the credential and the deck, never the
// link (the account's data download records its own security event:
// TestDataExportNeedsAPost).
func TestExportsAreAudited(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		writer, _ := e.key(t, contracts.AllScopes...)
		var deck contracts.Deck
		call(t, connect(t, e.addr+"/mcp", bearer(writer), ""), contracts.ToolCreateDeck, map[string]any{"name": "Leaky"}, &deck)
		cookies, csrf := e.signIn(t, testUser)
		resp, body := e.request(t, http.MethodPut, "/api/exposure", contracts.ExposureSettings{ReadOnly: true}, http.Header{auth.CSRFHeader: {csrf}}, cookies...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("read-only mode: %d %s", resp.StatusCode, body)
		}
		reader, readerID := e.key(t, contracts.ScopeDecksRead)
		var link contracts.ExportLink
		call(t, connect(t, e.addr+"/mcp", bearer(reader), ""), contracts.ToolExportDeck, map[string]any{"deckId": deck.ID, "includeMedia": false}, &link)
		token := strings.TrimPrefix(link.DownloadURL, e.base+"/export/")

		resp, _ = e.request(t, http.MethodPost, "/decks/"+deck.ID+"/export", url.Values{"csrf_token": {csrf}}.Encode(), form(e.base), cookies...)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("web export: %d", resp.StatusCode)
		}
		webToken := strings.TrimPrefix(resp.Header.Get("Location"), "/export/")

		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		var exports []contracts.AuditEvent
		for _, ev := range events {
			if ev.Tool == contracts.ToolExportDeck {
				exports = append(exports, ev)
			}
			if strings.Contains(string(ev.InputSummary), token) || strings.Contains(string(ev.InputSummary), webToken) {
				t.Errorf("audit row %s carries an export link", ev.Tool)
			}
		}
		if len(exports) != 2 {
			t.Fatalf("%d export_deck audit rows, want the tool's and the page's: %+v", len(exports), exports)
		}
		byKind := map[contracts.CredentialKind]contracts.AuditEvent{}
		for _, ev := range exports {
			byKind[ev.CredentialKind] = ev
			if ev.Action != "deck.export" || ev.Outcome != contracts.AuditOK || len(ev.AffectedIDs) != 1 || ev.AffectedIDs[0] != deck.ID {
				t.Errorf("export row %+v: want action deck.export, ok, the deck", ev)
			}
		}
		if k := byKind[contracts.CredentialAPIKey]; k.CredentialID != readerID {
			t.Errorf("the tool's export row names credential %q, want the read-only key %s", k.CredentialID, readerID)
		}
		if _, ok := byKind[contracts.CredentialSession]; !ok {
			t.Errorf("the page's export row does not name the web session: %+v", exports)
		}
	})
}
