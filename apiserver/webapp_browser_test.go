package apiserver_test

// Browser tests of the web app as a learner's daily tool (issue 31): paging
// through a large deck, refused forms that keep their input, times in the
// account's timezone, every card type, keys, narrow screens.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/chromedp"

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

// attr reads an attribute of the first element matching sel (null: "").
func (b *browser) attr(sel, name string) string {
	b.t.Helper()
	return evalJS[string](b, fmt.Sprintf(`document.querySelector(%q).getAttribute(%q) || ""`, sel, name))
}

// submitUnchecked submits the form of the button sel the way a browser
// without form validation would (novalidate), so the server's refusal is
// what the person sees.
func (b *browser) submitUnchecked(sel string) {
	b.t.Helper()
	b.do("novalidate", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).form.noValidate = true`, sel)))
	b.submit(sel)
}

// refusedField checks a refused form shown again: the field sel keeps
// want, and its message (sel-error, named by aria-describedby) says has.
// A number field's kept text is read from the page as sent: a browser
// shows no text that is not a number in it.
func (b *browser) refusedField(sel, want, has string) {
	b.t.Helper()
	if got := evalJS[string](b, fmt.Sprintf(`(e => e.type === "number" ? e.getAttribute("value") : e.value)(document.querySelector(%q))`, sel)); got != want {
		b.t.Errorf("%s after the refusal: %.60q (%d characters), want %.60q (%d)", sel, got, len(got), want, len(want))
	}
	id := b.attr(sel, "aria-describedby")
	if id == "" || b.attr(sel, "aria-invalid") != "true" {
		b.t.Errorf("%s is not marked invalid with its message (aria-describedby %q)", sel, id)
		return
	}
	if msg := b.textOf("#" + id); !strings.Contains(msg, has) {
		b.t.Errorf("%s's message %q does not say %q", sel, msg, has)
	}
}

// TestBrowserRefusedFormsKeepInput: each bad input (a duplicate deck name,
// a front over the limit, a note field over the limit, an empty back on
// the edit page, reviews per day "abc") comes back on its own form with
// what was typed and the reason beside the field; the fields carry the
// catalog's limits (maxlength, required, type=number with its range).
func TestBrowserRefusedFormsKeepInput(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	deck := seedDeck(t, e, "Existing", 1)
	b := newBrowser(t, e)
	b.signIn(testUser)
	refuseBadInputs(t, b, deck)
}

// refuseBadInputs submits each bad input of issue 31 §2 (deck is named
// "Existing" and holds "Front 001") and checks it is refused on its own
// form with what was typed kept and the reason beside the field.
func refuseBadInputs(t *testing.T, b *browser, deck contracts.Deck) {
	t.Helper()
	b.open("/decks")
	if got := b.attr("#deck-name", "maxlength"); got != strconv.Itoa(contracts.MaxDeckNameLen) || !b.exists("#deck-name[required]") {
		t.Errorf("#deck-name maxlength %q, required %v", got, b.exists("#deck-name[required]"))
	}
	b.fill("#deck-name", "Existing")
	b.fill("#deck-description", "typed by hand")
	b.submit(`form[action="/decks"] button`)
	b.refusedField("#deck-name", "Existing", "already exists")
	if got := evalJS[string](b, `document.querySelector("#deck-description").value`); got != "typed by hand" {
		t.Errorf("the description became %q", got)
	}
	b.look("refused-deck-name")

	long := strings.Repeat("x", contracts.MaxCardSideLen+1)
	b.open("/decks/" + deck.ID)
	if got := b.attr("#front", "maxlength"); got != strconv.Itoa(contracts.MaxCardSideLen) || !b.exists("#back[required]") {
		t.Errorf("#front maxlength %q, #back required %v", got, b.exists("#back[required]"))
	}
	b.fill("#front", long)
	b.fill("#back", "the answer")
	b.fill("#tags", "one two")
	b.submitUnchecked(`form[action$="/cards"] button`)
	b.refusedField("#front", long, "limit")
	if got := evalJS[string](b, `document.querySelector("#back").value + "|" + document.querySelector("#tags").value`); got != "the answer|one two" {
		t.Errorf("back|tags after the refusal: %q", got)
	}
	b.look("refused-card-front")

	b.open("/decks/" + deck.ID + "?type=Basic")
	b.fill("#field-0", "a question")
	b.fill("#field-1", long)
	b.submitUnchecked("#add-note-button")
	b.refusedField("#field-1", long, "limit")
	if got := evalJS[string](b, `document.querySelector("#field-0").value`); got != "a question" {
		t.Errorf("the note's first field became %q", got)
	}

	b.open("/decks/" + deck.ID)
	b.submit(`a[href$="/edit"]`)
	b.do("empty the back", chromedp.Evaluate[chromedp.Void](`document.querySelector("#back").value = ""`))
	b.submitUnchecked(`form[action^="/cards/"] button`)
	b.refusedField("#back", "", "back")
	if got := evalJS[string](b, `document.querySelector("#front").value`); got != "Front 001" {
		t.Errorf("the front on the refused edit form: %q", got)
	}
	b.look("refused-card-edit")

	b.open("/decks/" + deck.ID + "/settings")
	if got := b.attr("#reviewsPerDay", "type") + " " + b.attr("#reviewsPerDay", "min") + "-" + b.attr("#reviewsPerDay", "max"); got != "number 0-10000" {
		t.Errorf("#reviewsPerDay is %q, want the catalog's number 0-10000", got)
	}
	b.do("type abc", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reviewsPerDay").type = "text"`))
	b.fill("#reviewsPerDay", "abc")
	b.fill("#name", "Renamed meanwhile")
	b.submitUnchecked(`form[action$="/settings"] button`)
	b.refusedField("#reviewsPerDay", "abc", "whole number")
	if got := evalJS[string](b, `document.querySelector("#name").value`); got != "Renamed meanwhile" {
		t.Errorf("the name on the refused settings form: %q", got)
	}
	b.look("refused-settings")
}

// TestBrowserTimesInTheAccountsZone: after choosing Asia/Tokyo, the keys,
// audit, trash and Your day pages show times in Tokyo with "JST", not UTC.
func TestBrowserTimesInTheAccountsZone(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	deck := seedDeck(t, e, "Zoned", 2)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	call(t, cs, contracts.ToolUpdateSettings, map[string]any{"timezone": "Asia/Tokyo"}, nil)
	var page contracts.Page[contracts.Card]
	call(t, cs, contracts.ToolSearchCards, map[string]any{"deckId": deck.ID}, &page)
	call(t, cs, contracts.ToolDeleteCards, map[string]any{"cardIds": []string{page.Items[0].ID}}, nil)
	keys, err := e.app.ListKeys(context.Background(), testUser)
	if err != nil || len(keys) == 0 {
		t.Fatal(keys, err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	created := keys[0].CreatedAt.In(tokyo).Format("2006-01-02 15:04 JST")

	b := newBrowser(t, e)
	b.signIn(testUser)
	for _, c := range []struct{ path, want string }{
		{"/settings/keys", created},
		{"/audit", " JST"},
		{"/settings/trash", " JST"},
		{"/settings/day", " JST"},
	} {
		b.open(c.path)
		txt := b.text()
		if !strings.Contains(txt, c.want) || strings.Contains(txt, " UTC") {
			t.Errorf("%s shows no %q or still UTC:\n%s", c.path, c.want, txt)
		}
	}
	b.open("/settings/keys")
	b.look("keys-tokyo")
}

// noteInNewDeck adds one note of a stock type to a new deck named deck through
// MCP and returns the deck's id.
func noteInNewDeck(t *testing.T, e *env, deck, noteType string, fields map[string]string) string {
	t.Helper()
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	var d contracts.Deck
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": deck}, &d)
	var res contracts.BulkResult
	call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": d.ID, "notes": []map[string]any{{"noteType": noteType, "fields": fields}}}, &res)
	if len(res.Items) != 1 || res.Items[0].Status != contracts.OutcomeCreated {
		t.Fatalf("add_notes: %+v", res)
	}
	return d.ID
}

// TestBrowserClozeAndTypeIn studies a cloze card (its deletion highlighted
// on both sides) and a "Basic (type in the answer)" card: a typing box on
// the question, and on the answer the comparison of what was typed with
// the expected answer, without the question repeated.
func TestBrowserClozeAndTypeIn(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cloze := noteInNewDeck(t, e, "Cloze deck", contracts.NoteTypeCloze, map[string]string{"Text": "{{c1::Paris}} is the capital of France"})
	typein := noteInNewDeck(t, e, "Type-in deck", contracts.NoteTypeBasicTypeIn, map[string]string{"Front": "Capital of Italy?", "Back": "Rome"})
	b := newBrowser(t, e)
	b.signIn(testUser)

	highlighted := func(where string) {
		t.Helper()
		weight := evalJS[string](b, `getComputedStyle(document.querySelector("#card .cloze")).fontWeight`)
		color := evalJS[string](b, `getComputedStyle(document.querySelector("#card .cloze")).color`)
		plain := evalJS[string](b, `getComputedStyle(document.querySelector("#front")).color`)
		if weight != "700" || color == plain {
			t.Errorf("%s: the cloze is not highlighted (weight %s, color %s, text %s)", where, weight, color, plain)
		}
	}
	b.open("/decks/" + cloze)
	b.submit("#study-deck")
	if got := b.textOf("#front"); !strings.Contains(got, "[...] is the capital") {
		t.Fatalf("the cloze question: %q", got)
	}
	highlighted("question")
	b.key(" ", false)
	highlighted("answer")
	b.look("study-cloze-answer")

	b.open("/decks/" + typein)
	b.submit("#study-deck")
	if !b.exists("#typed") || b.attr("label[for=typed]", "for") != "typed" {
		t.Fatalf("no typing box on the type-in question:\n%s", b.html())
	}
	b.look("study-typein-question")
	b.do("type", chromedp.SendKeys("#typed", "Roma\n"))
	b.do("settle", chromedp.Sleep(200*time.Millisecond))
	if evalJS[bool](b, `document.querySelector("#back").hidden`) {
		t.Fatal("Enter in the typing box did not show the answer")
	}
	if back := b.textOf("#back"); strings.Contains(back, "Capital of Italy") {
		t.Errorf("the answer repeats the question: %q", back)
	}
	typed := evalJS[string](b, `[...document.querySelectorAll("#back .typed")].map(l => [...l.children].map(s => s.className + ":" + s.textContent).join(" ")).join(" | ")`)
	if typed != "typed-ok:Rom typed-bad:a | typed-ok:Rom typed-miss:e" {
		t.Errorf("the comparison of Roma with Rome: %q", typed)
	}
	b.look("study-typein-answer")
}

// TestWidgetClozeAndTypeIn: the study widget highlights a cloze deletion,
// puts a typing box on a type-in question, and on reveal compares what
// was typed with the answer.
func TestWidgetClozeAndTypeIn(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cloze := noteInNewDeck(t, e, "Cloze deck", contracts.NoteTypeCloze, map[string]string{"Text": "{{c1::Paris}} is the capital of France"})
	typein := noteInNewDeck(t, e, "Type-in deck", contracts.NoteTypeBasicTypeIn, map[string]string{"Front": "Capital of Italy?", "Back": "Rome"})
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	b := widgetBrowser(t, e)

	h, _ := newWidgetHost(t, e, cs, map[string]any{"deckId": cloze})
	b.openHost(h, "", "is the capital")
	props, ok := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[[]*css.ComputedStyleProperty] {
		return chromedp.ComputedStyle(chromedp.CSS("#front .cloze"), o)
	})
	weight := ""
	for _, p := range props {
		if p.Name == "font-weight" {
			weight = p.Value
		}
	}
	if !ok || weight != "700" {
		t.Errorf("the widget's cloze is not highlighted: font-weight %q (%v)", weight, ok)
	}

	h, _ = newWidgetHost(t, e, cs, map[string]any{"deckId": typein})
	b.openHost(h, "", "Capital of Italy")
	if _, ok := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.SendKeys(chromedp.CSS("#typed"), "Roma\n", o)
	}); !ok {
		t.Fatalf("no typing box in the widget; it shows %q", b.widgetText("#app"))
	}
	b.waitWidget("#back", "Rom")
	got, _ := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[string] {
		return chromedp.OuterHTML(chromedp.CSS("#back .type-answer"), o)
	})
	if !strings.Contains(got, `<span class="typed-bad">a</span>`) || !strings.Contains(got, `<span class="typed-miss">e</span>`) {
		t.Errorf("the widget's comparison of Roma with Rome: %s", got)
	}
	if back := b.widgetText("#back"); strings.Contains(back, "Capital of Italy") {
		t.Errorf("the widget's answer repeats the question: %q", back)
	}
	b.checkClean("widget type-in")
}

// TestBrowserAuditNamesAndLinks: the audit trail names cards by their
// front and decks by their name, and links a note to its edit form (it
// linked notes as cards, a 404).
func TestBrowserAuditNamesAndLinks(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	seedDeck(t, e, "Named", 2)
	noteInNewDeck(t, e, "Notes", contracts.NoteTypeBasic, map[string]string{"Front": "Bonjour", "Back": "Hello"})
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/audit?tool=" + contracts.ToolAddCards)
	if got := b.textOf("li.audit-row .affected"); !strings.Contains(got, "card “Front 001”") || !strings.Contains(got, "deck “Named”") {
		t.Errorf("add_cards' links: %q", got)
	}
	b.open("/audit?tool=" + contracts.ToolAddNotes)
	note := evalJS[string](b, `(a => a ? a.getAttribute("href") + " " + a.textContent : "")(document.querySelector("li.audit-row .affected a[href^='/notes/']"))`)
	if !strings.HasSuffix(note, "/edit note “Bonjour”") {
		t.Fatalf("add_notes links its note as %q", note)
	}
	b.submit("li.audit-row .affected a[href^='/notes/']")
	if !strings.Contains(b.textOf("h1"), "Edit note") || !strings.Contains(b.html(), "Bonjour") {
		t.Errorf("the note's link leads to %s:\n%s", b.location(), b.text())
	}
	b.open("/audit")
	b.look("audit-named")
}

// TestBrowserNarrowTablesAndCounter: at 360 px the deck list's counts and
// the deck page's card actions are on the screen (a table stacks its rows),
// not cut off; the study page says how many cards are left, which an Again
// does not turn into a growing total.
func TestBrowserNarrowTablesAndCounter(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	deck := seedDeck(t, e, "A deck with a rather long name for a phone", 3)
	b := newBrowser(t, e)
	b.signIn(testUser)
	onScreen := func(where, sel string) {
		t.Helper()
		out := evalJS[[]string](b, fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(e => { const r = e.getBoundingClientRect(); return r.right > 360 || r.left < 0; }).map(e => e.textContent.trim())`, sel))
		if len(out) > 0 {
			t.Errorf("%s at 360 px: off the screen: %q", where, out)
		}
	}
	b.emulate(360, 780, true, "light")
	b.open("/decks")
	onScreen("deck list", "#deck-list td")
	b.open("/decks/" + deck.ID)
	onScreen("deck page", "#cards td a, #cards td button")
	b.emulate(0, 0, false, "")
	b.look("deck-narrow")

	b.submit("#study-deck")
	if got := b.textOf("#left"); !strings.HasPrefix(got, "3 left · 0 done") {
		t.Fatalf("the study counter: %q", got)
	}
	b.key(" ", false)
	b.key("1", true) // Again: the card comes back in this session
	if got := b.textOf("#left"); !strings.HasPrefix(got, "3 left · 1 done") {
		t.Errorf("after Again the counter says %q, want 3 left · 1 done", got)
	}
}

// TestBrowserCramLabelled: a cram session an agent started is labelled as
// one on the study page (its ratings change no schedule).
func TestBrowserCramLabelled(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	deck := seedDeck(t, e, "Crammed", 2)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	var sess contracts.StudySession
	call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID, "cram": true}, &sess)
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/study/" + sess.ID)
	if !b.exists("#cram") || !strings.Contains(b.textOf("#cram"), "Cram session") {
		t.Errorf("the cram session is not labelled:\n%s", b.text())
	}
}

// TestBrowserCheckboxesBesideLabels: at 360 px every checkbox of the keys
// and agents pages sits beside its label, at its first line (a long label
// wrapped under its box before).
func TestBrowserCheckboxesBesideLabels(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.emulate(360, 780, true, "light")
	for _, path := range []string{"/settings/keys", "/settings/agents"} {
		b.open(path)
		apart := evalJS[[]string](b, `[...document.querySelectorAll(".check")].map(c => {
			const box = c.querySelector("input[type=checkbox]").getBoundingClientRect();
			const label = c.querySelector("label").getBoundingClientRect();
			return (Math.abs(label.top - box.top) > 12 || label.left < box.right || label.left - box.right > 16) ? c.querySelector("label").textContent.trim() : "";
		}).filter(s => s !== "")`)
		if len(apart) > 0 {
			t.Errorf("%s at 360 px: checkboxes apart from their labels: %q", path, apart)
		}
	}
	b.emulate(0, 0, false, "")
	// The agents page: tools grouped by toolset, one line each with the
	// model-facing description folded, and Save near the top.
	if top := evalJS[float64](b, `document.querySelector("#save-agents-top").getBoundingClientRect().top`); top > 1000 {
		t.Errorf("the agents page's Save is %.0f px down", top)
	}
	if n := evalJS[int](b, `document.querySelectorAll(".tool details:not([open])").length`); n != len(contracts.Catalog()) {
		t.Errorf("%d folded tool descriptions, want one per tool (%d)", n, len(contracts.Catalog()))
	}
	if n := evalJS[int](b, `document.querySelectorAll("fieldset.tools").length`); n != len(contracts.Toolsets()) {
		t.Errorf("%d tool groups, want one per toolset (%d)", n, len(contracts.Toolsets()))
	}
	b.look("agents-checkboxes")
}
