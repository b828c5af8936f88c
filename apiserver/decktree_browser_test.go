package apiserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserDeckTree: Parent::Child decks (issue 27 §4) through a real
// MCP client and chromium. list_decks rolls a parent's counts up over
// the decks below it; the web deck list shows the decks as a tree (a
// parent before the decks below it, whatever order they were made in,
// each indented and named by its last level, with the parent's counts
// holding its children's); Today adds each card up once.
func TestBrowserDeckTree(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		seedDeck(t, e, "Zeta", 2)
		seedDeck(t, e, "Lang::Verbs", 3) // made before its parent
		seedDeck(t, e, "Lang", 1)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		var page contracts.DeckPage
		call(t, cs, contracts.ToolListDecks, map[string]any{}, &page)
		for _, d := range page.Items {
			want := map[string]int{"Lang": 4, "Lang::Verbs": 3, "Zeta": 2}[d.Name]
			if d.Counts.Total != want || d.Counts.New != want {
				t.Errorf("list_decks %s: %+v; want %d cards, all new", d.Name, d.Counts, want)
			}
		}

		b := newBrowser(t, e)
		b.signIn(testUser)
		b.open("/decks")
		rows := evalJS[[]string](b, `[...document.querySelectorAll("#deck-list tbody tr")].map(r => [r.querySelector("td").textContent.replace(/\u00a0/g, "_").trim(), r.querySelector("a").title, ...[...r.querySelectorAll("td.num")].map(td => td.textContent.trim())].join("|"))`)
		want := []string{"Lang|Lang|4|0|0|4", "___Verbs|Lang::Verbs|3|0|0|3", "Zeta|Zeta|2|0|0|2"}
		if !slices.Equal(rows, want) {
			t.Errorf("deck list rows (name|full name|new today|learning|due|cards):\n%q\nwant\n%q", rows, want)
		}
		b.look("deck-tree")
		b.open("/")
		if lead := b.textOf(".lead"); !strings.Contains(lead, "6 new cards") {
			t.Errorf("Today: %q; want 6 new cards (Lang's 4, its Verbs' among them, and Zeta's 2)", lead)
		}
	})
}
