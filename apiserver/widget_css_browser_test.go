package apiserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/contracts"
)

// widgetStyle returns the computed value of the CSS property prop of sel
// in the widget ("missing" when sel is not there).
func (b *browser) widgetStyle(sel, prop string) string {
	b.t.Helper()
	props, ok := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[[]*css.ComputedStyleProperty] {
		return chromedp.ComputedStyle(chromedp.CSS(sel), o)
	})
	if !ok {
		return "missing"
	}
	for _, p := range props {
		if p.Name == prop {
			return p.Value
		}
	}
	return ""
}

// TestWidgetNoteTypeCSS: a card of an imported note type with CSS reaches
// the widget with that CSS in structuredContent.cardCss, scoped to the
// card's container and with nothing in it that loads (as the web study
// view's stylesheet); the widget applies it to the card only, under the
// host's strict CSP, and drops it for the next card, of a stock type.
func TestWidgetNoteTypeCSS(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	importStyledDeck(t, e, cs)
	var decks contracts.DeckPage
	call(t, cs, contracts.ToolListDecks, map[string]any{}, &decks)
	var deck contracts.Deck
	for _, d := range decks.Items {
		if d.Name == "Styled" {
			deck = d
		}
	}
	call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "plain **Katze**", "back": "stock"}}}, nil)
	h, first := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
	var view contracts.StudyView
	raw, _ := json.Marshal(first.StructuredContent)
	if err := json.Unmarshal(raw, &view); err != nil || view.Current == nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	styledFirst := strings.Contains(view.FrontHTML, "Hund")
	if styledFirst == (view.CardCSS == "") || strings.Contains(view.CardCSS, "url(") || strings.Contains(view.CardCSS, "@import") {
		t.Fatalf("the card %q comes with cardCss %q", view.FrontHTML, view.CardCSS)
	}

	b := widgetBrowser(t, e)
	b.emulate(1280, 800, false, "light")
	b.openHost(h, "", map[bool]string{true: "Hund", false: "Katze"}[styledFirst])
	styled := false
	for range 2 {
		hund := strings.Contains(b.widgetText("#front"), "Hund")
		b.clickWidget("#reveal")
		b.waitWidget("#back", map[bool]string{true: "the dog", false: "stock"}[hund])
		if !hund {
			if c := b.widgetAttr("#card", "class"); strings.Contains(c, contracts.CardStyleClass) {
				t.Errorf("the stock card's container is %q", c)
			}
			if got := b.widgetStyle("#front", "color"); got == "rgb(0, 0, 128)" {
				t.Errorf("the note type's CSS styles the stock card")
			}
			b.clickWidget(`button[data-rating="easy"]`)
			if !styled {
				b.waitWidget("#front", "Hund")
			}
			continue
		}
		styled = true
		cardCSS, _ := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[string] {
			return chromedp.JavascriptAttribute[string](chromedp.CSS("#card-css"), "textContent", o)
		})
		if !strings.Contains(cardCSS, "."+contracts.CardStyleClass) || strings.Contains(cardCSS, "url(") || strings.Contains(cardCSS, "tracker") ||
			strings.Contains(cardCSS, "@import") || strings.Contains(cardCSS, "font-face") {
			t.Errorf("the widget's card style sheet:\n%s", cardCSS)
		}
		want := map[[2]string]string{
			{"#front", "color"}: "rgb(0, 0, 128)", {"#front b", "color"}: "rgb(128, 0, 0)", {"#front", "letter-spacing"}: "1px",
			{"#card", "background-color"}: "rgb(255, 250, 205)", {"#card", "contain"}: "paint", {"#card", "background-image"}: "none",
		}
		for k, w := range want {
			if got := b.widgetStyle(k[0], k[1]); got != w {
				t.Errorf("%s %s: %q, want %q", k[0], k[1], got, w)
			}
		}
		if bg := b.widgetStyle("body", "background-color"); bg == "rgb(255, 250, 205)" {
			t.Errorf("the note type's CSS reached the widget's body")
		}
		if d := b.widgetStyle("#ratings", "display"); d == "none" || d == "missing" {
			t.Errorf("the note type's CSS hid the ratings (display %q)", d)
		}
		b.look("widget-note-css")
		b.clickWidget(`button[data-rating="easy"]`)
		if styledFirst {
			b.waitWidget("#front", "Katze")
		}
	}
	if !styled {
		t.Fatal("the styled card was not shown")
	}
	b.waitWidget("#done", "Session complete")
	if c := b.widgetAttr("#card", "class"); strings.Contains(c, contracts.CardStyleClass) {
		t.Errorf("after the session the card's container is %q", c)
	}
	b.checkClean("widget note css")
}
