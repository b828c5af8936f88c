package apiserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// takeoverCSS is a shared deck's note-type CSS that tries to take the
// study page over (issue 30): the container undoes its containment and
// is fixed over the whole viewport above everything, through .card, a
// compound of it, and a state of it, with !important; an element inside
// tries the same; and the container's shadow and outline try to paint
// over the page around it.
const takeoverCSS = `.card, .card.card, .card:hover { contain: none !important; position: fixed !important; inset: 0 !important;
  z-index: 2147483647 !important; margin: 0 !important; width: 100vw !important; height: 100vh !important;
  background: white; color: black; box-shadow: 0 0 0 100vmax white; outline: 100vmax solid white; transform: none !important; }
.card .overlay { display: block; position: fixed !important; inset: 0 !important; z-index: 2147483647 !important; background: white;
  contain: none !important; padding: 40vh 1rem; font-size: 20px; }
.nt-card { contain: none !important; }`

// TestBrowserHostileDeckStaysInCard: an imported package whose CSS and
// card HTML try to put "Your session expired, sign in at
// https://evil.example/login" over the whole study page, dressed in the
// app's own error classes, stays inside the card's box at 360 and 1280 px:
// the page's navigation, the reveal button and the rating buttons are
// visible and on top where they are (a click there reaches them), the
// card's box leaves the navigation alone, the card HTML carries none of
// the app's class names, and the real mouse clicks on Show answer and
// Good do what they say.
func TestBrowserHostileDeckStaysInCard(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeMediaWrite)
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	importHostileDeck(t, e, cs)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	decks, err := svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil || len(decks.Items) != 1 {
		t.Fatalf("decks %+v, %v", decks, err)
	}
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: decks.Items[0].ID})
	if err != nil || sess.Current == nil {
		t.Fatalf("start: %+v, %v", sess, err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	for _, size := range shotSizes {
		where := fmt.Sprintf("%dpx", size.width)
		b.emulate(size.width, size.height, size.mobile, "light")
		b.open("/study/" + sess.ID)
		if !strings.Contains(b.textOf("#front"), "evil.example") || !b.exists(".nt-card") {
			t.Fatalf("%s: the hostile card is not shown with its CSS:\n%s", where, b.html())
		}
		if !b.exists("#card .overlay") || b.exists("#card .flash, #card .error, #card .notice") {
			t.Errorf("%s: the card HTML carries the app's classes: %s", where, evalJS[string](b, `document.querySelector("#card").innerHTML`))
		}
		// On a phone the study view is focused: the brand link is the
		// page's only chrome (issue 31 §14); wider, the navigation too.
		chrome := "header.top a, nav a"
		if size.mobile {
			chrome = "header.top a.brand"
		}
		b.onTop(where, chrome+", #reveal")
		b.cardClearOf(where, "header.top")
		b.click("#reveal") // a real mouse click at the button's centre
		b.waitVisible(where, "#ratings")
		b.onTop(where, chrome+", #ratings button")
		b.cardClearOf(where, "header.top, #ratings")
		if size.width == shotSizes[len(shotSizes)-1].width {
			b.look("hostile-deck")
		}
		before := b.textOf("main")
		b.submit(`#ratings button[data-rating="3"]`)
		if after := b.textOf("main"); after == before {
			t.Errorf("%s: clicking Good did not rate the card:\n%s", where, after)
		}
	}
	b.checkClean("hostile deck")
}

// importHostileDeck imports, through cs, the deck "Shared": two cards of a
// note type whose CSS is takeoverCSS and whose fronts say "Your session
// expired, sign in at https://evil.example/login" in a span dressed in
// the app's error classes.
func importHostileDeck(t *testing.T, e *env, cs *mcp.ClientSession) {
	t.Helper()
	const phish = `<span class="overlay flash error notice">Your session expired, sign in at https://evil.example/login</span>`
	importOverMCP(t, e, cs, ports.AnkiPackage{
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Decks:   []ports.AnkiDeck{{Key: 1, Name: "Shared", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 1700000000002, Name: "Takeover", Fields: []string{"Word", "Meaning"}, CSS: takeoverCSS,
			Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Word}}", Back: "{{FrontSide}}<hr id=answer>{{Meaning}}"}}}},
		Notes: []ports.AnkiNote{
			{Key: 10, GUID: "g-take-1", TypeKey: 1700000000002, Fields: []string{phish, "the dog"}},
			{Key: 11, GUID: "g-take-2", TypeKey: 1700000000002, Fields: []string{phish, "the cat"}},
		},
		Cards: []ports.AnkiCard{{Key: 100, NoteKey: 10, DeckKey: 1, Ord: 0, Position: 1}, {Key: 101, NoteKey: 11, DeckKey: 1, Ord: 0, Position: 2}},
	})
}

// onTop fails unless every element matching sel is visible and is what a
// click at its centre reaches (nothing of the card's painted over it),
// scrolling each into view first.
func (b *browser) onTop(where, sel string) {
	b.t.Helper()
	bad := evalJS[[]string](b, fmt.Sprintf(`(() => {
		const els = [...document.querySelectorAll(%q)];
		if (els.length === 0) return ["nothing matches"];
		const bad = [];
		for (const el of els) {
			const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + JSON.stringify(el.textContent.trim().slice(0, 20));
			el.scrollIntoView({block: "center", inline: "center"});
			const r = el.getBoundingClientRect(), s = getComputedStyle(el);
			if (r.width < 1 || r.height < 1 || s.visibility !== "visible" || Number(s.opacity) < 0.5) { bad.push(name + " is not visible"); continue; }
			const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (!hit || !el.contains(hit)) bad.push(name + " is covered by " + (hit ? hit.tagName.toLowerCase() + "#" + hit.id + "." + hit.className + " " + JSON.stringify(hit.textContent.trim().slice(0, 40)) : "nothing"));
		}
		window.scrollTo(0, 0);
		return bad;
	})()`, sel))
	for _, p := range bad {
		b.t.Errorf("%s: %s", where, p)
	}
}

// cardClearOf fails when the card's box (#card) overlaps an element
// matching sel.
func (b *browser) cardClearOf(where, sel string) {
	b.t.Helper()
	bad := evalJS[[]string](b, fmt.Sprintf(`(() => {
		const c = document.querySelector("#card").getBoundingClientRect();
		return [...document.querySelectorAll(%q)].filter(el => {
			const r = el.getBoundingClientRect();
			return r.left < c.right && c.left < r.right && r.top < c.bottom && c.top < r.bottom;
		}).map(el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "." + el.className));
	})()`, sel))
	for _, p := range bad {
		b.t.Errorf("%s: the card's box overlaps %s", where, p)
	}
}

// waitVisible waits until the element matching sel is displayed.
func (b *browser) waitVisible(where, sel string) {
	b.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if evalJS[bool](b, fmt.Sprintf(`(() => { const el = document.querySelector(%q); return !!el && el.getClientRects().length > 0; })()`, sel)) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: %s never showed:\n%s", where, sel, b.html())
		}
	}
}

// TestWidgetHostileDeckStaysInCard: the same hostile deck in the MCP Apps
// widget (its card CSS comes through structuredContent.cardCss, scoped the
// same way): at 360 and 1280 px real mouse clicks on Show answer and Good
// reach them (a card fixed over the widget would take the clicks), and the
// card's own container keeps its paint containment.
func TestWidgetHostileDeckStaysInCard(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	importHostileDeck(t, e, cs)
	var decks contracts.DeckPage
	call(t, cs, contracts.ToolListDecks, map[string]any{}, &decks)
	if len(decks.Items) != 1 {
		t.Fatalf("decks %+v", decks)
	}
	h, _ := newWidgetHost(t, e, cs, map[string]any{"deckId": decks.Items[0].ID})
	b := widgetBrowser(t, e)
	for i, size := range shotSizes {
		b.emulate(size.width, size.height, size.mobile, "light")
		if i == 0 {
			b.openHost(h, "", "evil.example")
		}
		if got := b.widgetStyle("#card", "contain"); got != "paint" {
			t.Errorf("%dpx: the card's container has contain %q, want paint", size.width, got)
		}
		if got := b.widgetStyle("#card", "position"); got != "relative" {
			t.Errorf("%dpx: the card's container has position %q, want relative", size.width, got)
		}
		b.clickWidget("#reveal")
		b.waitWidget("#back", "the ")
		if i == len(shotSizes)-1 {
			b.look("widget-hostile-deck")
		}
		b.clickWidget(`button[data-rating="good"]`)
		b.waitWidget("#status", "Good")
	}
	b.checkClean("widget hostile deck")
}
