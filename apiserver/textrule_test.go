package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// One text rule for every user string, on both databases: a NUL (or
// another control character) in a deck name, description, card side or
// tag is refused with a clear per-field error, never a 500 and never
// stored; names refuse bidirectional overrides and invisible-only values;
// CRLF is stored as LF; Arabic and Hebrew cards come back exactly as
// written.
func TestTextRule(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		refused := func(tool string, args map[string]any, want string) {
			t.Helper()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || !res.IsError || !strings.Contains(resultText(res), want) || strings.Contains(resultText(res), "nternal") {
				t.Errorf("%s %v: %v %s; want an isError naming %q", tool, args, err, resultText(res), want)
			}
		}
		refused("create_deck", map[string]any{"name": "Deck\x00one"}, "name contains a NUL character")
		refused("create_deck", map[string]any{"name": "Deck\x1b[31m"}, "U+001B")
		refused("create_deck", map[string]any{"name": "invoice\u202Efdp.exe"}, "bidirectional control U+202E")
		refused("create_deck", map[string]any{"name": "\u200B\u200D"}, "invisible")
		refused("create_deck", map[string]any{"name": "Fine", "description": "bell\x07"}, "description contains the control character U+0007")

		var deck contracts.Deck
		call(t, cs, "create_deck", map[string]any{"name": "لغات · שפות"}, &deck)
		if deck.Name != "لغات · שפות" {
			t.Errorf("deck name stored as %q", deck.Name)
		}
		var bulk contracts.BulkResult
		call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "مرحبا\r\nبالعالم", "back": "hello\r\nworld", "tags": []string{"عربي"}},
			{"front": "\u200Fשלום", "back": "peace"},
			{"front": "nul\x00here", "back": "x"},
			{"front": "ok", "back": "tag", "tags": []string{"a\u202Eb"}},
		}}, &bulk)
		if len(bulk.Items) != 4 || bulk.Items[0].Status != "created" || bulk.Items[1].Status != "created" ||
			bulk.Items[2].Status != "invalid" || !strings.Contains(bulk.Items[2].Reason, "front contains a NUL character") ||
			bulk.Items[3].Status != "invalid" || !strings.Contains(bulk.Items[3].Reason, "bidirectional") {
			t.Fatalf("add_cards outcomes: %+v", bulk.Items)
		}
		var found contracts.CardPage
		call(t, cs, "search_cards", map[string]any{"deckId": deck.ID}, &found)
		fronts := map[string]string{}
		for _, c := range found.Items {
			fronts[c.Front] = c.Back
		}
		if fronts["مرحبا\nبالعالم"] != "hello\nworld" || fronts["\u200Fשלום"] != "peace" || len(fronts) != 2 {
			t.Errorf("stored cards: %q; want CRLF as LF and right-to-left text as written", fronts)
		}
	})
}
