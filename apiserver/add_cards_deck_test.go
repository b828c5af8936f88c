package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestAddCardsChecksTheDeck: add_cards without an idempotency key reads no
// deck before its insert, so the insert's own check must refuse a deck
// that is not the caller's (another user's, or none) with the same
// not-found answer naming the deck, inserting nothing, also when every card
// of the batch is invalid (nothing to insert) and with a key (the deck
// read first).
func TestAddCardsChecksTheDeck(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		ownerKey, _ := e.key(t, contracts.AllScopes...)
		owner := connect(t, e.base+"/mcp", bearer(ownerKey), "")
		var deck contracts.Deck
		call(t, owner, contracts.ToolCreateDeck, map[string]any{"name": "Mine"}, &deck)

		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", ""); err != nil {
			t.Fatal(err)
		}
		otherKey, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", contracts.AllScopes, 0)
		if err != nil {
			t.Fatal(err)
		}
		other := connect(t, e.base+"/mcp", bearer(otherKey.Secret), "")
		valid := []map[string]any{{"front": "Q", "back": "A"}}
		invalid := []map[string]any{{"front": "  ", "back": "  "}} // blank after cleaning: no row to insert
		for _, tc := range []struct {
			name string
			args map[string]any
		}{
			{"another user's deck", map[string]any{"deckId": deck.ID, "cards": valid}},
			{"another user's deck, every card invalid", map[string]any{"deckId": deck.ID, "cards": invalid}},
			{"another user's deck, with a key", map[string]any{"deckId": deck.ID, "cards": valid, "idempotencyKey": "k1"}},
			{"no such deck", map[string]any{"deckId": "01a2343e-0000-7000-8000-000000000000", "cards": valid}},
		} {
			res, err := other.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolAddCards, Arguments: tc.args})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, "not found") || !strings.Contains(text, tc.args["deckId"].(string)) {
				t.Errorf("%s: isError=%v %q, want a not-found error naming the deck", tc.name, res.IsError, text)
			}
		}
		var got contracts.Deck
		call(t, owner, contracts.ToolGetDeck, map[string]any{"deckId": deck.ID}, &got)
		if got.Counts.Total != 0 {
			t.Errorf("the owner's deck holds %d cards after the refused calls, want 0", got.Counts.Total)
		}
	})
}
