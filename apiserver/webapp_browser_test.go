package apiserver_test

// Browser tests of the web app as a learner's daily tool (issue 31): paging
// through a large deck, refused forms that keep their input, times in the
// account's timezone, every card type, keys, narrow screens.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// seedDeck creates a deck named name with n cards ("Front 001" … / "Back
// 001" …) through MCP, as an agent would, and returns it.
func seedDeck(t *testing.T, e *env, name string, n int) contracts.Deck {
	t.Helper()
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": name}, &deck)
	for start := 0; start < n; start += 100 {
		var cards []map[string]any
		for i := start; i < min(start+100, n); i++ {
			cards = append(cards, map[string]any{"front": fmt.Sprintf("Front %03d", i+1), "back": fmt.Sprintf("Back %03d", i+1)})
		}
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards}, nil)
	}
	return deck
}

// TestBrowserDeckPaging pages through a 300-card deck with "More cards":
// every card is reached once, and each page's link carries one cursor.
func TestBrowserDeckPaging(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	deck := seedDeck(t, e, "Three hundred", 300)
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/decks/" + deck.ID)
	seen := map[string]bool{}
	for page := 1; ; page++ {
		fronts := evalJS[[]string](b, `[...document.querySelectorAll("tbody tr td:first-child")].map(td => td.textContent.trim())`)
		if len(fronts) == 0 {
			t.Fatalf("page %d shows no cards", page)
		}
		for _, f := range fronts {
			if seen[f] {
				t.Fatalf("page %d shows %q again (location %s)", page, f, b.location())
			}
			seen[f] = true
		}
		if page == 2 {
			b.look("deck-page-2")
		}
		if !b.exists("#more-cards") {
			break
		}
		if page > 10 {
			t.Fatal("more than 10 pages for 300 cards")
		}
		b.submit("#more-cards")
		if loc := b.location(); strings.Count(loc, "cursor=") != 1 || strings.Contains(loc, "%3d") || strings.Contains(loc, "%3D") {
			t.Fatalf("page %d's address: %s", page+1, loc)
		}
	}
	if len(seen) != 300 {
		t.Fatalf("paging reached %d of 300 cards", len(seen))
	}
}
