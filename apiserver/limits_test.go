package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// toolRefusal calls a tool that a limit must refuse with a tool result
// the model can act on (isError, HTTP 200, kind rate_limited), and returns
// its text.
func toolRefusal(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v, want an isError result", name, err)
	}
	if !res.IsError || res.Meta[contracts.MetaErrorKind] != string(contracts.KindRateLimited) {
		t.Fatalf("%s: isError %v meta %v text %q, want a rate_limited refusal", name, res.IsError, res.Meta, resultText(res))
	}
	return resultText(res)
}

// refusalsOf reads takhtabush_limit_refusals_total{limit} from /metrics.
func refusalsOf(t *testing.T, e *env, limit string) int {
	t.Helper()
	_, body := e.request(t, http.MethodGet, "/metrics", nil, nil)
	prefix := `takhtabush_limit_refusals_total{limit="` + limit + `"} `
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// TestRateLimitPerCredential: past its burst a credential gets 429 with
// Retry-After and, on /mcp, a JSON-RPC error naming the limit; another
// credential of the same account is not affected; the web app's REST
// door is limited the same way with its JSON body.
func TestRateLimitPerCredential(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, func(c *apiserver.Config) { c.Limits.RatePerSecond, c.Limits.Burst = 0.01, 3 })
		key, _ := e.key(t, contracts.AllScopes...)
		other, _ := e.key(t, contracts.AllScopes...)
		list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
		for i := range 3 {
			if resp, body := e.rpc(t, list, bearer(key)); resp.StatusCode != http.StatusOK {
				t.Fatalf("call %d within the burst: %d %s", i+1, resp.StatusCode, body)
			}
		}
		resp, body := e.rpc(t, list, bearer(key))
		var rpcErr struct {
			Error struct {
				Code    int            `json:"code"`
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &rpcErr); err != nil {
			t.Fatalf("the refusal is not JSON-RPC: %s", body)
		}
		after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusTooManyRequests || after < 60 || rpcErr.Error.Data["kind"] != "rate_limited" ||
			rpcErr.Error.Data["limit"] != contracts.LimitRate || !strings.Contains(rpcErr.Error.Message, "retry in") {
			t.Errorf("past the burst: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if resp, body := e.rpc(t, list, bearer(other)); resp.StatusCode != http.StatusOK {
			t.Errorf("another key of the account: %d %s", resp.StatusCode, body)
		}

		cookies, csrf := e.signIn(t, testUser)
		same := http.Header{auth.CSRFHeader: {csrf}, "Origin": {e.base}}
		for range 3 {
			e.request(t, http.MethodGet, "/api/decks", nil, same, cookies...)
		}
		resp, body = e.request(t, http.MethodGet, "/api/decks", nil, same, cookies...)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), `"kind":"rate_limited"`) {
			t.Errorf("REST past the burst: %d %s", resp.StatusCode, body)
		}
		if n := refusalsOf(t, e, contracts.LimitRate); n != 2 {
			t.Errorf("rate refusals counted %d, want 2", n)
		}
	})
}

// TestRateLimitPerAccount: all of an account's credentials share the
// account's budget, so minting more keys buys no more (issue 30, item 5:
// 61 keys minted in a row had 61 budgets); the refusal names the
// account's limit; another account is not affected.
func TestRateLimitPerAccount(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) {
		c.Limits.RatePerSecond, c.Limits.Burst = 0.01, 3
		c.Limits.AccountRatePerSecond, c.Limits.AccountBurst = 0.01, 5
	})
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	first, _ := e.key(t, contracts.AllScopes...)
	for i := range 3 {
		if resp, body := e.rpc(t, list, bearer(first)); resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d of the first key: %d %s", i+1, resp.StatusCode, body)
		}
	}
	second, _ := e.key(t, contracts.AllScopes...)
	for i := range 2 {
		if resp, body := e.rpc(t, list, bearer(second)); resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d of the second key: %d %s", i+1, resp.StatusCode, body)
		}
	}
	for i := range 3 { // fresh keys: the account's budget is spent
		fresh, _ := e.key(t, contracts.AllScopes...)
		resp, body := e.rpc(t, list, bearer(fresh))
		if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), `"limit":"`+contracts.LimitAccountRate+`"`) ||
			!strings.Contains(string(body), "this account's credentials together") || resp.Header.Get("Retry-After") == "" {
			t.Errorf("fresh key %d past the account's burst: %d %.300s", i+1, resp.StatusCode, body)
		}
	}
	if _, _, err := e.app.EnsureUser(t.Context(), "bob@example.com", "Bob"); err != nil {
		t.Fatal(err)
	}
	bob, err := e.app.CreateKey(t.Context(), "bob@example.com", "bob", contracts.AllScopes, 0)
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := e.rpc(t, list, bearer(bob.Secret)); resp.StatusCode != http.StatusOK {
		t.Errorf("another account: %d %s", resp.StatusCode, body)
	}
	if n := refusalsOf(t, e, contracts.LimitAccountRate); n != 3 {
		t.Errorf("account rate refusals counted %d, want 3", n)
	}
}

// TestDailyWriteQuota: cards added, reviews and uploads count against the
// account's quota in its learner's day, checked before the write; a
// refusal is a tool result the model can act on (it says the quota and
// when it resets) and writes nothing; imports do not count; the next
// learner's day starts over.
func TestDailyWriteQuota(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, func(c *apiserver.Config) { c.Limits.DailyWrites = 5 })
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Quota"}, &deck)
		cards := func(prefix string, n int) []map[string]any {
			out := make([]map[string]any, n)
			for i := range out {
				out[i] = map[string]any{"front": prefix + strconv.Itoa(i), "back": "x"}
			}
			return out
		}
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards("a", 3)}, nil)
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		call(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": sess.ID, "cardId": sess.Current.CardID,
			"position": sess.Current.Position, "rating": "good"}, nil) // 4 writes

		text := toolRefusal(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards("b", 2)})
		if !strings.Contains(text, "Limit reached") || !strings.Contains(text, "5 writes a day") || !strings.Contains(text, "resets at") {
			t.Errorf("the refusal says %q; want the quota and when it resets", text)
		}
		// Imports count against the card cap only.
		var imported contracts.BulkResult
		call(t, cs, contracts.ToolImportCards, map[string]any{"deckId": deck.ID, "format": "csv", "text": "front,back\nI1,x\nI2,x\nI3,x\n"}, &imported)
		if imported.Counts[string(contracts.OutcomeCreated)] != 3 {
			t.Errorf("import while the quota is nearly spent: %+v", imported)
		}
		call(t, cs, contracts.ToolRequestMediaUpload, map[string]any{"contentType": "image/png", "bytes": 10}, nil) // the 5th write
		toolRefusal(t, cs, contracts.ToolRequestMediaUpload, map[string]any{"contentType": "image/png", "bytes": 10})
		var next contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &next)
		toolRefusal(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": next.ID, "cardId": next.Current.CardID,
			"position": next.Current.Position, "rating": "good"})

		// Nothing of the refused calls was written: 3 added + 3 imported.
		var got contracts.Deck
		call(t, cs, contracts.ToolGetDeck, map[string]any{"deckId": deck.ID}, &got)
		if got.Counts.Total != 6 {
			t.Errorf("the deck holds %d cards, want 6 (refused writes wrote nothing)", got.Counts.Total)
		}
		if n := refusalsOf(t, e, contracts.LimitDailyWrites); n != 3 {
			t.Errorf("daily quota refusals counted %d, want 3", n)
		}

		// The next learner's day starts over.
		e.clock.Advance(24 * time.Hour)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards("c", 5)}, nil)
		toolRefusal(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards("d", 1)})
		// A batch larger than the whole quota is refused as such.
		if text := toolRefusal(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards("e", 6)}); !strings.Contains(text, "split it") {
			t.Errorf("a batch over the whole quota: %q", text)
		}
	})
}

// TestCardAndDeckCaps: the caps on what an account holds refuse adds,
// imports and new decks past them, through MCP (isError) and the REST
// API (429 JSON), and allow them again once something is deleted (the
// trash is not counted); a restore past a cap is refused item by item.
func TestCardAndDeckCaps(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, func(c *apiserver.Config) { c.Limits.MaxCards, c.Limits.MaxDecks = 4, 2 })
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Caps"}, &deck)
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "1", "back": "x"}, {"front": "2", "back": "x"}, {"front": "3", "back": "x"}}}, &added)
		text := toolRefusal(t, cs, contracts.ToolImportCards, map[string]any{"deckId": deck.ID, "format": "csv", "text": "front,back\nI1,x\nI2,x\n"})
		if !strings.Contains(text, "card limit") || !strings.Contains(text, "holds 3 cards") || !strings.Contains(text, "limit is 4") {
			t.Errorf("import past the card cap: %q", text)
		}
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "4", "back": "x"}}}, nil)
		toolRefusal(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "5", "back": "x"}}})
		call(t, cs, contracts.ToolDeleteCards, map[string]any{"cardIds": []string{added.Items[0].ID}}, nil)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "5", "back": "x"}}}, nil)

		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Second"}, nil)
		if text := toolRefusal(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Third"}); !strings.Contains(text, "deck limit") {
			t.Errorf("a third deck: %q", text)
		}
		cookies, csrf := e.signIn(t, testUser)
		resp, body := e.request(t, http.MethodPost, "/api/decks", map[string]any{"name": "Third"},
			http.Header{auth.CSRFHeader: {csrf}, "Origin": {e.base}}, cookies...)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "" ||
			!strings.Contains(string(body), `"kind":"rate_limited"`) || !strings.Contains(string(body), "deck limit") {
			t.Errorf("REST create past the deck cap: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if refusalsOf(t, e, contracts.LimitCards) != 2 || refusalsOf(t, e, contracts.LimitDecks) != 2 {
			t.Errorf("cap refusals counted: cards %d decks %d, want 2 and 2", refusalsOf(t, e, contracts.LimitCards), refusalsOf(t, e, contracts.LimitDecks))
		}
		// The trash is not held (card 5 came in after card 1 went to it), so
		// restoring card 1 now would pass the cap: it stays in the trash.
		var res contracts.RestoreResult
		call(t, cs, contracts.ToolRestoreItems, map[string]any{"cardIds": []string{added.Items[0].ID}}, &res)
		if res.Cards[0].Status != contracts.OutcomeConflict || !strings.Contains(res.Cards[0].Reason, "card limit") {
			t.Errorf("restore past the card cap = %+v", res.Cards)
		}
	})
}

// TestTrustedProxies: the client address (in the access log, and so in
// sign-in and registration limits) is the connection's peer unless the
// peer is a trusted proxy; then X-Forwarded-For names it.
func TestTrustedProxies(t *testing.T) {
	for _, c := range []struct {
		name    string
		trusted string
		want    string
	}{
		{"untrusted", "", `"remote":"127.0.0.1"`},
		{"trusted", "127.0.0.0/8", `"remote":"203.0.113.9"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, sqliteURL(t), func(cfg *apiserver.Config) {
				if c.trusted != "" {
					cfg.TrustedProxies = mustPrefixes(t, c.trusted)
				}
			})
			e.request(t, http.MethodGet, "/healthz", nil, http.Header{"X-Forwarded-For": {"198.51.100.1, 203.0.113.9"}})
			if logs := e.logs.String(); !strings.Contains(logs, c.want) {
				t.Errorf("the access log does not carry %s:\n%s", c.want, grepLines(logs, `"remote"`))
			}
		})
	}
}

// mustPrefixes parses a comma-separated list of networks.
func mustPrefixes(t *testing.T, list string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		p, err := netip.ParsePrefix(strings.TrimSpace(f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
