package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// seedByAgent has an agent (the official Go SDK client with an API key)
// build a deck, add cards and study three of them, so the pages have
// something to show and the audit trail has MCP mutations.
func seedByAgent(t *testing.T, e *env, key string) contracts.Deck {
	t.Helper()
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Capitals", "description": "Countries and their capitals"}, &deck)
	var bulk contracts.BulkResult
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "France", "back": "Paris"}, {"front": "Japan", "back": "Tokyo"}, {"front": "Peru", "back": "Lima"},
		{"front": "Kenya", "back": "Nairobi"}, {"front": "Chile", "back": "Santiago"},
	}}, &bulk)
	var sess contracts.StudySession
	call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
	for i, rating := range []string{"good", "again", "easy"} {
		if sess.Current == nil {
			t.Fatalf("session ran out after %d reviews", i)
		}
		var res contracts.ReviewResult
		call(t, cs, "submit_review", map[string]any{"sessionId": sess.ID, "cardId": sess.Current.CardID,
			"position": sess.Current.Position, "rating": rating, "durationMs": 6000}, &res)
		sess.Current = res.Next
	}
	return deck
}

// TestHomeStatsAndAuditInABrowser: a visitor's home page explains the
// service; a signed-in person sees their decks with what is due, their
// stats with server-drawn charts, and the audit row of an agent's change.
func TestHomeStatsAndAuditInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	agentKey, agentKeyID := e.key(t, contracts.AllScopes...)
	deck := seedByAgent(t, e, agentKey)

	b.open("/")
	if txt := b.text(); !strings.Contains(txt, "Sign in") || !strings.Contains(txt, e.base+"/mcp") {
		t.Errorf("the visitor's home page:\n%s", txt)
	}
	b.look("home-visitor")

	b.signIn(testUser)
	b.open("/")
	txt := b.text()
	// Five cards, three studied: two new cards are left, and the daily limit allows them.
	if !strings.Contains(txt, "Capitals") || !strings.Contains(txt, "2 new today") || !strings.Contains(txt, "2 new cards wait for today") {
		t.Errorf("the signed-in home page:\n%s", txt)
	}
	if !b.exists(`a[href="/decks/` + deck.ID + `"]`) {
		t.Errorf("the home page does not link the deck")
	}
	b.look("home")

	b.open("/stats")
	txt = b.text()
	for _, want := range []string{"Reviews per day", "Reviews expected in the next 30 days", "True retention", "Streak", "Time spent", "18 s", "1 day"} {
		if !strings.Contains(txt, want) {
			t.Errorf("stats page lacks %q:\n%s", want, txt)
		}
	}
	if n := evalJS[int](b, `document.querySelectorAll("figure.chart svg rect").length`); n < 2 {
		t.Errorf("the charts draw %d bars, want the day's reviews and the forecast", n)
	}
	// The year's heatmap: a square a day, today's the only one studied
	// and so the busiest step, said in words too (issue 31 §13).
	cells := evalJS[[]string](b, `[...document.querySelectorAll("svg.heatmap rect")].map(r => r.getAttribute("class"))`)
	if len(cells) != 365 || cells[364] != "heat4" || slices.Index(cells, "heat4") != 364 {
		t.Errorf("the heatmap has %d squares, the last %q", len(cells), cells[len(cells)-1])
	}
	today, err := e.app.Services().Stats.Stats(e.asUser(t), contracts.GetStatsArgs{Days: 1}) // the learner's today
	if err != nil || len(today.ReviewsPerDay) != 1 {
		t.Fatalf("stats of today: %+v, %v", today, err)
	}
	day, _ := time.Parse(time.DateOnly, today.ReviewsPerDay[0].Date)
	if got := b.textOf("#year-summary"); got != "Reviews on 1 of the last 365 days, 3 reviews in all. The busiest day was "+day.Format("2 January 2006")+" with 3 reviews." {
		t.Errorf("the heatmap's summary: %q", got)
	}
	// The answer buttons by card age (the agent's good, again and easy on
	// new cards) and the three scheduled cards' histograms, in words too.
	if got := evalJS[[]string](b, `[...document.querySelectorAll("#buttons-h ~ .table-wrap tbody tr")].map(tr => [...tr.children].map(c => c.textContent).join("|"))`); !slices.Equal(got, []string{
		"Again|1|0|0", "Hard|0|0|0", "Good|1|0|0", "Easy|1|0|0", "Kept|66.7%|–|–"}) {
		t.Errorf("the answer buttons table: %q", got)
	}
	for _, id := range []string{"intervals-chart", "stability-chart", "difficulty-chart"} {
		if desc := evalJS[string](b, `document.getElementById("`+id+`-d").textContent`); !strings.HasPrefix(desc, "3 cards by ") {
			t.Errorf("the %s's description is %q, want the 3 studied cards", id, desc)
		}
	}
	for _, want := range []string{"Young cards", "Mature cards"} {
		if !strings.Contains(txt, want) {
			t.Errorf("stats page lacks %q", want)
		}
	}
	b.look("stats")
	b.open("/stats?deck=" + deck.ID + "&days=7")
	if !strings.Contains(b.textOf("h1"), "Capitals") {
		t.Errorf("the deck's stats page is titled %q", b.textOf("h1"))
	}

	// The audit trail shows the agent's create_deck with its key, input and deck link.
	b.open("/audit")
	txt = b.text()
	for _, want := range []string{"create_deck", "add_cards", "submit_review", "Key test"} {
		if !strings.Contains(txt, want) {
			t.Errorf("audit page lacks %q:\n%s", want, txt)
		}
	}
	createRow := evalJS[string](b, `[...document.querySelectorAll("li.audit-row")].filter(li => li.querySelector(".audit-tool code").textContent === "create_deck").map(li => li.textContent).join("\n")`)
	if !strings.Contains(createRow, "Capitals") || !strings.Contains(createRow, "deck “Capitals”") {
		t.Errorf("the create_deck row:\n%s", createRow)
	}
	if !b.exists(`li.audit-row a[href="/decks/` + deck.ID + `"]`) {
		t.Errorf("no audit row links the deck")
	}
	b.look("audit")

	// Filter by tool and by credential.
	b.do("choose a tool", chromedpSetSelect("#f-tool", "submit_review"))
	b.submit(`form.filters button[type="submit"]`)
	// The three ratings of one session by one key are one row.
	tools := evalJS[[]string](b, `[...document.querySelectorAll(".audit-tool code")].map(c => c.textContent)`)
	if len(tools) != 1 || tools[0] != "submit_review" || !strings.Contains(b.textOf("li.audit-row"), "3 times") {
		t.Errorf("filtered by submit_review, the page shows %v:\n%s", tools, b.text())
	}
	b.open("/audit?credential=" + agentKeyID + "&from=2000-01-01")
	if n := evalJS[int](b, `document.querySelectorAll("li.audit-row").length`); n != 4 {
		t.Errorf("the agent key's events: %d rows, want 4 (create_deck, add_cards, start_study_session, the ratings)", n)
	}
	b.open("/audit?to=2000-01-01")
	if n := evalJS[int](b, `document.querySelectorAll("li.audit-row").length`); n != 0 {
		t.Errorf("events before 2000: %d rows", n)
	}
}

// TestKeysAndAgentsInABrowser: a key minted in the browser (the default
// scopes let an agent add cards) is shown once, after a redirect, so
// reloading mints nothing and shows no secret, and works on /mcp; a tool
// switched off on the Agents page is gone for a real MCP client; a key is
// revoked after a confirmation and stops working.
func TestKeysAndAgentsInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)

	b.open("/settings/keys")
	b.look("keys")
	if !evalJS[bool](b, `document.querySelector("#scope-decks\\:write").checked`) {
		t.Errorf("decks:write is not among the default scopes: a default key could not add cards")
	}
	b.fill("#key-name", "Claude on my laptop")
	b.click("#scope-study\\:render")
	b.do("choose the expiry", chromedpSetSelect("#key-expires", "90d"))
	b.submit(`form[action="/settings/keys"] button[type="submit"]`)
	secret := strings.TrimSpace(b.textOf("#new-key"))
	if len(secret) < 20 {
		t.Fatalf("the new key shown is %q; the page says:\n%s", secret, b.text())
	}
	b.look("keys-new")
	// Post/redirect/get: reloading the page that showed the key mints
	// nothing and shows the secret no more.
	shown := b.location()
	if !strings.HasPrefix(shown, "/settings/keys?new=") {
		t.Errorf("minting a key ends on %s, not on the key list after a redirect", shown)
	}
	b.do("reload", chromedp.Reload())
	if page := b.html(); strings.Contains(page, secret) || !strings.Contains(b.text(), "shown once") {
		t.Errorf("reloading the new key's page shows the secret again or says nothing of it:\n%s", b.text())
	}
	keys, err := e.app.ListKeys(context.Background(), testUser)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys after minting: %+v, %v", keys, err)
	}
	k := keys[0]
	if k.Name != "Claude on my laptop" || !strings.HasSuffix(secret, k.Hint) || k.ExpiresAt == nil ||
		!slices.Equal(contracts.ScopeStrings(k.Scopes), []string{"decks:read", "stats:read", "decks:write", "study:write", "study:render"}) {
		t.Errorf("the minted key: %+v", k)
	}

	// Shown once: the list afterwards carries the hint, never the secret.
	b.open("/settings/keys")
	if page := b.html(); strings.Contains(page, secret) || !strings.Contains(page, "…"+k.Hint) || !strings.Contains(page, "Claude on my laptop") {
		t.Errorf("the key list after minting shows the secret or lacks the key")
	}

	cs := connect(t, e.base+"/mcp", bearer(secret), "")
	if names := toolNames(t, cs); !slices.Contains(names, "add_cards") || !slices.Contains(names, "create_deck") {
		t.Fatalf("the new key sees %v", names)
	}

	// Switch add_cards off.
	b.open("/settings/agents")
	if txt := b.text(); !strings.Contains(txt, e.base+"/mcp") || !strings.Contains(txt, "claude mcp add") || !strings.Contains(txt, "Add cards") {
		t.Errorf("the agents page lacks the MCP URL, a client configuration or a tool title:\n%s", txt)
	}
	if n := evalJS[int](b, `document.querySelectorAll('input[role="switch"][name="tool"]').length`); n != len(contracts.Catalog()) {
		t.Errorf("%d tool switches, want one per tool (%d)", n, len(contracts.Catalog()))
	}
	b.look("agents")
	b.click("#tool-add_cards")
	b.submit(`form[action="/settings/agents"] button[type="submit"]`)
	if !strings.Contains(b.text(), "Saved") || evalJS[bool](b, `document.querySelector("#tool-add_cards").checked`) {
		t.Fatalf("after switching add_cards off the page says:\n%s", b.text())
	}
	cs = connect(t, e.base+"/mcp", bearer(secret), "")
	names := toolNames(t, cs)
	if slices.Contains(names, "add_cards") || !slices.Contains(names, "create_deck") {
		t.Errorf("after switching add_cards off, tools/list = %v", names)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_cards", Arguments: map[string]any{"deckId": "x", "cards": []any{}}})
	if err == nil && (res == nil || !res.IsError) {
		t.Errorf("add_cards still callable after being switched off: %+v", res)
	}

	// The account's default toolsets: a new account never chose, so an
	// agent whose address and headers choose none gets the lean sets;
	// ticked on the page, the chosen ones.
	byDefault := http.Header{"Authorization": {"Bearer " + secret}, mcpcore.HeaderToolsets: {""}}
	inSets := func(when string, sets ...string) {
		t.Helper()
		names := toolNames(t, connect(t, e.base+"/mcp", byDefault, ""))
		if len(names) == 0 {
			t.Fatalf("%s: the default lists no tool", when)
		}
		for _, n := range names {
			if tool, _ := contracts.Tool(n); !slices.ContainsFunc(sets, func(s string) bool { return slices.Contains(tool.Sets, s) }) {
				t.Errorf("%s: the default lists %s (sets %v), outside %v", when, n, tool.Sets, sets)
			}
		}
		for _, s := range sets {
			if !slices.ContainsFunc(names, func(n string) bool { tool, _ := contracts.Tool(n); return slices.Contains(tool.Sets, s) }) {
				t.Errorf("%s: the default lists no tool of %s: %v", when, s, names)
			}
		}
	}
	inSets("never chosen", contracts.LeanToolsets...)
	if txt := b.text(); !strings.Contains(txt, "You have not chosen yet") ||
		!evalJS[bool](b, `document.querySelector("#toolset-study-default").checked && document.querySelector("#toolset-library-default").checked && !document.querySelector("#toolset-exchange-default").checked && !document.querySelector("#toolset-all").checked`) {
		t.Errorf("the agents page does not show the lean default as the account's toolsets:\n%s", txt)
	}
	b.click("#toolset-library-default")
	b.click("#toolset-exchange-default")
	b.submit(`form[action="/settings/agents"] button[type="submit"]`)
	if txt := b.text(); !strings.Contains(txt, "Saved") || strings.Contains(txt, "You have not chosen yet") ||
		!evalJS[bool](b, `document.querySelector("#toolset-exchange-default").checked && !document.querySelector("#toolset-library-default").checked`) {
		t.Errorf("after choosing study and exchange the page says:\n%s", txt)
	}
	inSets("study and exchange chosen", contracts.ToolsetStudy, contracts.ToolsetExchange)
	b.look("agents-toolsets")
	// None ticked is refused with a reason; the choice stays.
	b.click("#toolset-study-default")
	b.click("#toolset-exchange-default")
	b.submit(`form[action="/settings/agents"] button[type="submit"]`)
	if txt := b.text(); !strings.Contains(txt, "Tick at least one toolset") {
		t.Errorf("saving with no toolset ticked says:\n%s", txt)
	}
	inSets("after a refused save", contracts.ToolsetStudy, contracts.ToolsetExchange)
	b.open("/settings/agents")

	// Read-only mode hides every mutating tool.
	b.click("#read-only")
	b.submit(`form[action="/settings/agents"] button[type="submit"]`)
	cs = connect(t, e.base+"/mcp", bearer(secret), "")
	for _, n := range toolNames(t, cs) {
		if tool, _ := contracts.Tool(n); tool.Mutates {
			t.Errorf("read-only mode still lists %s", n)
		}
	}
	b.look("agents-read-only")
	if !evalJS[bool](b, `document.querySelector("#toolset-exchange-default").checked && document.querySelector("#toolset-study-default").checked`) {
		t.Errorf("turning read-only mode on changed the default toolsets")
	}

	// Revoke.
	b.open("/settings/keys")
	b.submit(`a[href$="/revoke"]`)
	if !strings.Contains(b.text(), "Revoke the key “Claude on my laptop”?") {
		t.Fatalf("revoking asks nothing first; the page says:\n%s", b.text())
	}
	if keys, _ := e.app.ListKeys(context.Background(), testUser); len(keys) != 1 || keys[0].RevokedAt != nil {
		t.Fatalf("the key was revoked before the confirmation: %+v", keys)
	}
	b.look("key-revoke")
	b.submit("#revoke-key")
	if !strings.Contains(b.text(), "revoked") {
		t.Errorf("after revoking, the page says:\n%s", b.text())
	}
	if _, err := tryConnect(e.base+"/mcp", bearer(secret), ""); err == nil {
		t.Errorf("a revoked key still connects")
	}
}

// TestYourDataInABrowser: the export downloads a zip; deleting the account
// needs the email typed out, then signs the browser out and stops the
// account's keys.
func TestYourDataInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	key, _ := e.key(t, contracts.AllScopes...)
	seedByAgent(t, e, key)
	b.signIn(testUser)
	b.open("/settings/data")
	b.look("data")
	got := evalJS[string](b, `fetch("/settings/data/export", {method: "POST", body: new URLSearchParams(new FormData(document.querySelector('form[action="/settings/data/export"]')))}).then(async r => r.status + " " + r.headers.get("content-type") + " " + (await r.arrayBuffer()).byteLength)`)
	var status, ctype string
	var size int
	if _, err := fmt.Sscan(got, &status, &ctype, &size); err != nil || status != "200" || ctype != "application/zip" || size < 500 {
		t.Errorf("export: %q", got)
	}

	b.fill("#confirm", "someone@example.com")
	b.submit(`form[action="/settings/data/delete"] button`)
	if !strings.Contains(b.text(), "type your email address") {
		t.Fatalf("a wrong confirmation: the page says\n%s", b.text())
	}
	if _, err := e.app.ListKeys(context.Background(), testUser); err != nil {
		t.Fatalf("a wrong confirmation deleted something: %v", err)
	}
	b.fill("#confirm", testUser)
	b.submit(`form[action="/settings/data/delete"] button`)
	if !strings.Contains(b.text(), "Your account is deleted") || b.cookie("tb_csrf") != "" {
		t.Fatalf("after deleting, the page says:\n%s", b.text())
	}
	b.look("goodbye")
	if _, err := tryConnect(e.base+"/mcp", bearer(key), ""); err == nil {
		t.Errorf("the deleted account's key still connects")
	}
	b.open("/settings/keys")
	if loc := b.location(); !strings.HasPrefix(loc, "/signin") {
		t.Errorf("after deleting, /settings/keys lands on %s", loc)
	}
}

// TestYourDayInABrowser: the browser's timezone is offered and saved with
// the rollover hour; an unknown timezone is refused with a reason.
func TestYourDayInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	b.signIn(testUser)
	b.open("/settings/day")
	// A new account took the browser's timezone when it signed in.
	if v := evalJS[string](b, `document.querySelector("#timezone").value`); v != "Asia/Tokyo" {
		t.Errorf("a new account signed in from Tokyo: its timezone field shows %q", v)
	}
	b.look("day")
	b.click("button[data-browser-tz]")
	b.do("choose 5:00", chromedpSetSelect("#rollover", "5"))
	b.submit(`form[action="/settings/day"] button[type="submit"]`)
	if !strings.Contains(b.text(), "Saved") {
		t.Fatalf("after saving, the page says:\n%s", b.text())
	}
	u, err := e.app.Services().Accounts.UserByEmail(context.Background(), testUser)
	if err != nil {
		t.Fatal(err)
	}
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
	s, err := e.app.Services().Settings.Settings(ctx)
	if err != nil || s.Timezone != "Asia/Tokyo" || s.RolloverHour != 5 {
		t.Errorf("saved settings %+v, %v; want Asia/Tokyo from 5:00", s, err)
	}

	b.fill("#timezone", "Mars/Olympus_Mons")
	b.submit(`form[action="/settings/day"] button[type="submit"]`)
	if txt := b.text(); !strings.Contains(txt, "Mars/Olympus_Mons") || !b.exists(".error") {
		t.Errorf("an unknown timezone: the page says\n%s", txt)
	}
	if s, _ := e.app.Services().Settings.Settings(ctx); s.Timezone != "Asia/Tokyo" {
		t.Errorf("a refused save changed the timezone to %q", s.Timezone)
	}
}
