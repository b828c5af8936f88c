package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// hostileNoteCSS is a note type's CSS as a hostile package brings it:
// loads (an import, url() images, a font), rules for the page and for the
// card's siblings, beside the plain rules that should apply to the card.
const hostileNoteCSS = `@import url("https://tracker.invalid/a.css");
.card { color: rgb(0, 0, 128); background-image: url("https://tracker.invalid/x.png"); }
body { background: rgb(255, 250, 205); }
strong, b { color: rgb(128, 0, 0); }
.card ~ * { display: none; }
@font-face { font-family: Evil; src: url("https://tracker.invalid/f.woff"); }
@media (min-width: 1px) { .card { letter-spacing: 1px; } }`

// importStyledDeck imports, through cs, the deck "Styled" with one card of
// a note type whose CSS is hostileNoteCSS ("der <b>Hund</b>" / "the dog").
func importStyledDeck(t *testing.T, e *env, cs *mcp.ClientSession) {
	t.Helper()
	importOverMCP(t, e, cs, ports.AnkiPackage{
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Decks:   []ports.AnkiDeck{{Key: 1, Name: "Styled", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 1700000000001, Name: "Vocab", Fields: []string{"Word", "Meaning"}, CSS: hostileNoteCSS,
			Templates: []ports.AnkiTemplate{{Name: "Recognise", Front: "{{Word}}", Back: "{{FrontSide}}<hr id=answer>{{Meaning}}"}}}},
		Notes: []ports.AnkiNote{{Key: 10, GUID: "g-hund", TypeKey: 1700000000001, Fields: []string{"der <b>Hund</b>", "the dog"}}},
		Cards: []ports.AnkiCard{{Key: 100, NoteKey: 10, DeckKey: 1, Ord: 0, Position: 1}},
	})
}

// TestBrowserNoteTypeCSS: a card of an imported note type is studied with
// the type's CSS, under the pages' strict CSP (a stylesheet of our own
// origin, nothing inline): its rules reach the card, Anki's .card and body
// become the card container, and nothing reaches outside it — the page's
// body, the rating buttons beside the card; url() and @import are gone,
// so nothing loads (a request would break the CSP and fail the test). A
// card of a stock type gets no stylesheet.
func TestBrowserNoteTypeCSS(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeMediaWrite)
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	importStyledDeck(t, e, cs)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	var deck contracts.Deck
	decks, err := svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decks.Items {
		if d.Name == "Styled" {
			deck = d
		}
	}
	if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: []contracts.NewCard{{Front: "plain **card**", Back: "stock"}}}); err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
	if err != nil || sess.Current == nil {
		t.Fatalf("start: %+v, %v", sess, err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	styled := false
	for range 2 {
		b.open("/study/" + sess.ID)
		if !strings.Contains(b.textOf("#front"), "Hund") {
			if b.exists("link[href$='/style.css']") || b.exists(".nt-card") {
				t.Errorf("the stock card has the note type's stylesheet:\n%s", b.html())
			}
			b.key(" ", false)
			b.key("3", true)
			continue
		}
		styled = true
		served := evalJS[string](b, `(async () => {
			const l = document.querySelector("link[rel=stylesheet][href$='/style.css']");
			return l ? await (await fetch(l.href)).text() : "";
		})()`)
		if served == "" || strings.Contains(served, "url(") || strings.Contains(served, "tracker") || strings.Contains(served, "@import") || strings.Contains(served, "font-face") {
			t.Errorf("the served stylesheet:\n%s", served)
		}
		b.key(" ", false)
		got := evalJS[map[string]string](b, `(() => {
			const cs = (sel, prop) => { const el = document.querySelector(sel); return el ? getComputedStyle(el)[prop] : "missing"; };
			return {
				front: cs("#front", "color"), strong: cs("#front strong, #front b", "color"), spacing: cs("#front", "letterSpacing"),
				card: cs("#card", "backgroundColor"), contain: cs("#card", "contain"), cardImage: cs("#card", "backgroundImage"),
				body: cs("body", "backgroundColor"), ratings: cs("#ratings", "display"),
			};
		})()`)
		want := map[string]string{"front": "rgb(0, 0, 128)", "strong": "rgb(128, 0, 0)", "spacing": "1px", "card": "rgb(255, 250, 205)",
			"contain": "paint", "cardImage": "none"}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %q, want %q", k, got[k], w)
			}
		}
		if got["body"] == "rgb(255, 250, 205)" || got["ratings"] == "none" {
			t.Errorf("the note type's CSS reached outside the card: %v", got)
		}
		b.look("study-note-css")
		b.key("3", true)
	}
	if !styled {
		t.Fatal("the styled card was not studied")
	}
	b.checkClean("note css")
}
