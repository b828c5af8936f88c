package apiserver_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// dropFile drops a file into the field sel, as a person dragging it from
// their desktop does.
func (b *browser) dropFile(sel, name, mime string, data []byte) {
	b.t.Helper()
	b.do("drop "+name, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = atob(%q), bytes = new Uint8Array(s.length);
		for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], %q, {type: %q}));
		document.querySelector(%q).dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`, base64.StdEncoding.EncodeToString(data), name, mime, sel)))
}

// TestBrowserLearnersFirstDay is issue 31's "Done when", one person's
// first day in one browser: /cards pages through a 300-card deck (each
// card once); each bad input of §2 is refused with the input kept; an
// image dropped into the editor makes a card; a session then studies a
// cloze card (highlighted), a type-in card (typed and compared) and the
// image card (the image loads); offline, three cards are rated, and back
// online the three reviews are in the cards' histories at the times they
// were given. Screenshots at 360 and 1280 px, light and dark, with
// axe-core, on each step (TAKHTABUSH_SCREENSHOTS keeps them).
func TestBrowserLearnersFirstDay(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		big := seedDeck(t, e, "Three hundred", 300)
		existing := seedDeck(t, e, "Existing", 1)
		daily := seedDeck(t, e, "Daily", 0)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": daily.ID, "notes": []map[string]any{
			{"noteType": contracts.NoteTypeCloze, "fields": map[string]string{"Text": "{{c1::Paris}} is the capital of France"}},
			{"noteType": contracts.NoteTypeBasicTypeIn, "fields": map[string]string{"Front": "Capital of Italy?", "Back": "Rome"}}}}, nil)
		ctx := e.asUser(t)
		svc := e.app.Services()
		b := newBrowser(t, e)
		b.signIn(testUser)

		// Every card of the big deck once, page after page.
		b.open("/cards?deck=" + big.ID)
		if ids := pageThrough(t, b); len(ids) != 300 {
			t.Fatalf("paging /cards reached %d of 300 cards", len(ids))
		}
		b.look("firstday-cards")

		refuseBadInputs(t, b, existing)

		// An image dropped into a new card's front.
		b.open("/decks/" + daily.ID)
		b.dropFile("#front", "map.png", "image/png", picture(t))
		b.waitJS("the image's reference", `document.querySelector("#front").value.includes("media:")`)
		b.fill("#back", "A map")
		b.submit("#add-card button[type=submit]")
		var more []map[string]any
		for i := 1; i <= 5; i++ {
			more = append(more, map[string]any{"front": fmt.Sprintf("Daily %d", i), "back": "yes"})
		}
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": daily.ID, "cards": more}, nil)

		// Study until the cloze, the type-in and the image card were each
		// shown and rated.
		b.open("/decks/" + daily.ID)
		b.submit("#study-deck")
		started := time.Now()
		seen := map[string]bool{}
		for i := 0; len(seen) < 3; i++ {
			if i >= 8 {
				t.Fatalf("after %d cards, studied only %v of cloze, type-in and image", i, seen)
			}
			switch {
			case b.exists("#front .cloze"):
				seen["cloze"] = true
				b.key(" ", false)
				if w := evalJS[string](b, `getComputedStyle(document.querySelector("#back .cloze, #front .cloze")).fontWeight`); w != "700" {
					t.Errorf("the cloze is not highlighted (font weight %s)", w)
				}
				b.look("firstday-cloze")
			case b.exists("#typed"):
				seen["type-in"] = true
				b.do("type", chromedp.SendKeys("#typed", "Roma\n"))
				b.waitJS("the answer", `!document.querySelector("#back").hidden`)
				if got := evalJS[string](b, `[...document.querySelectorAll("#back .typed")].map(l => l.textContent).join(" | ")`); got != "Roma | Rome" {
					t.Errorf("the typed answer compared: %q", got)
				}
				b.look("firstday-typein")
			case b.exists("#front img"):
				seen["image"] = true
				b.waitJS("the image", `(i => i.complete && i.naturalWidth === 320)(document.querySelector("#front img"))`)
				b.key(" ", false)
				b.look("firstday-image")
			default:
				b.key(" ", false)
			}
			b.submit(`button[value="good"]`)
		}

		// Offline: three ratings, a second apart.
		b.waitJS("the cards loaded ahead", `Number((document.querySelector("[data-study]") || {getAttribute: () => 0}).getAttribute("data-ahead")) >= 2`)
		b.setOffline(true)
		b.waitJS("the page to know it is offline", `!navigator.onLine`)
		var cards []string
		var clicks []time.Time
		for i := range 3 {
			if i > 0 {
				time.Sleep(time.Second)
			}
			cards = append(cards, b.attr("input[name=cardId]", "value"))
			b.key(" ", false)
			clicks = append(clicks, time.Now())
			b.click(`button[value="good"]`)
			b.waitJS("the next card", fmt.Sprintf(`document.querySelector("input[name=cardId]").value !== %q || document.querySelector("#offline-done") !== null`, cards[i]))
		}
		b.look("firstday-offline")
		time.Sleep(time.Second)
		e.clock.Advance(time.Since(started)) // the service's clock moves on as the browser's did
		online, now := time.Now(), e.clock.Now()
		b.setOffline(false)
		b.waitJS("the report", `(document.querySelector("#offline-report") || {textContent: ""}).textContent.includes("3 ratings given offline were sent")`)
		b.look("firstday-back-online")
		for i, c := range cards {
			h, err := svc.Cards.CardHistory(ctx, c)
			if err != nil || len(h) != 1 || h[0].Rating != contracts.RatingGood {
				t.Fatalf("card %d's history %+v, %v: want the one rating given offline", i, h, err)
			}
			if d := now.Sub(h[0].ReviewedAt) - online.Sub(clicks[i]); d < -time.Second || d > time.Second {
				t.Errorf("card %d's review is dated %s before the network came back; it was given %s before", i, now.Sub(h[0].ReviewedAt), online.Sub(clicks[i]))
			}
			b.open("/cards/" + c)
			if rows := evalJS[int](b, `document.querySelectorAll("#card-history tbody tr").length`); rows != 1 {
				t.Errorf("card %d's page lists %d reviews", i, rows)
			}
		}
		b.look("firstday-card-history")
		if !strings.Contains(b.textOf("#card-history"), "Good") {
			t.Errorf("the history: %q", b.textOf("#card-history"))
		}
	})
}
