package apiserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserStudyActions: while studying, the current card can be marked
// and unmarked, edited (E, back to the session with the new text),
// suspended (the session goes on without it), buried, and its audio
// replayed (R); each change goes through update_cards or bury_cards and
// is audited. The deck page starts a cram session and a study-ahead one
// (issue 31 §12).
func TestBrowserStudyActions(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		deck := seedDeck(t, e, "Acting", 3)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		snd := intent(t, cs, "audio/wav", len(tinyWAV), "hello.wav")
		if code, body := e.put(t, snd, tinyWAV, nil); code != http.StatusNoContent {
			t.Fatalf("upload: %d %s", code, body)
		}
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": `Listen <audio src="media:` + snd.MediaID + `" controls></audio>`, "back": "hello"}}}, &added)
		audioCard := added.Items[0].ID
		ctx := e.asUser(t)
		svc := e.app.Services()

		b := newBrowser(t, e, chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
		b.signIn(testUser)
		b.open("/decks/" + deck.ID)
		b.submit("#study-deck")
		session := strings.TrimPrefix(b.location(), e.base)
		// On a phone the study page is focused: no navigation.
		navShown := func() bool {
			return evalJS[bool](b, `getComputedStyle(document.querySelector(".top .nav")).display !== "none"`)
		}
		b.emulate(360, 780, true, "light")
		if navShown() {
			t.Error("at 360 px the study page shows the navigation")
		}
		b.emulate(0, 0, false, "")
		if !navShown() {
			t.Error("on a wide screen the study page hides the navigation")
		}
		current := func() string { return evalJS[string](b, `document.querySelector('input[name="cardId"]').value`) }

		// Mark, then unmark.
		first := current()
		b.submit("#mark-card")
		if c, _ := svc.Cards.GetCard(ctx, first); !slices.Contains(c.Tags, "marked") || !strings.HasPrefix(b.textOf(".flash"), "Card marked") || b.textOf("#mark-card") != "Marked ★" {
			t.Errorf("after Mark: tags %v, flash %q, button %q", c.Tags, b.textOf(".flash"), b.textOf("#mark-card"))
		}
		b.submit("#mark-card")
		if c, _ := svc.Cards.GetCard(ctx, first); slices.Contains(c.Tags, "marked") || current() != first {
			t.Errorf("after unmarking: tags %v, current %s (want %s)", c.Tags, current(), first)
		}

		// Flag it green with Shift+3, take the flag off with Shift+3 again,
		// then flag it red from the menu (issue 31 §12).
		flagOf := func() int { c, _ := svc.Cards.GetCard(ctx, first); return c.Flag }
		b.key("#", true)
		if f := flagOf(); f != 3 || current() != first || !strings.HasPrefix(b.textOf(".flash"), "Card flagged green") {
			t.Errorf("after Shift+3: flag %d, current %s (want %s), flash %q", f, current(), first, b.textOf(".flash"))
		}
		b.key("#", true)
		if f := flagOf(); f != 0 || b.textOf(".flash") != "Flag taken off." {
			t.Errorf("after Shift+3 again: flag %d, flash %q", f, b.textOf(".flash"))
		}
		b.do("choose red", chromedpSetSelect("#flag-card", "1"))
		b.submit("#flag-apply")
		if f := flagOf(); f != 1 || evalJS[string](b, `document.querySelector("#flag-card").value`) != "1" {
			t.Errorf("after flagging red from the menu: flag %d", f)
		}

		// Edit with E: back to the session, the card as it studies now.
		b.key("e", true)
		if !strings.Contains(b.location(), "/cards/"+first+"/edit?next=") || !b.exists(`input[name="next"]`) {
			t.Fatalf("E led to %s", b.location())
		}
		b.fill("#back", "Edited back")
		b.submit("form.panel button[type=submit]")
		if loc := strings.TrimPrefix(b.location(), e.base); loc != session+"?edited=1" || current() != first {
			t.Fatalf("after saving: at %s with card %s, want %s?edited=1 with %s", loc, current(), session, first)
		}
		b.key(" ", false)
		if got := b.textOf("#back"); got != "Edited back" {
			t.Errorf("the edited card's back: %q", got)
		}
		b.look("study-actions")

		// Suspend: the session goes on without the card.
		b.submit("#suspend-card")
		if c, _ := svc.Cards.GetCard(ctx, first); !c.Suspended || current() == first {
			t.Errorf("after Suspend: suspended %v, current %s", c.Suspended, current())
		}

		// Bury until the card with audio is current, then replay it.
		for i := 0; current() != audioCard; i++ {
			if i > 3 {
				t.Fatal("the card with audio never came")
			}
			b.submit("#bury")
		}
		b.do("listen", chromedp.Evaluate[chromedp.Void](`window.__played = 0; document.querySelector("#front audio").addEventListener("play", () => window.__played++)`))
		b.key("r", false)
		b.do("wait", chromedp.Sleep(300*time.Millisecond))
		if n := evalJS[int](b, `window.__played`); n != 1 {
			t.Errorf("R played the front's audio %d times, want 1", n)
		}

		events, err := svc.Audit.List(ctx, contracts.AuditFilter{}, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]int{}
		for _, ev := range events.Items {
			tools[ev.Tool]++
		}
		if tools[contracts.ToolUpdateCards] != 7 || tools[contracts.ToolBuryCards] < 1 {
			t.Errorf("audited %v, want update_cards 7 (mark, unmark, three flags, edit, suspend) and bury_cards", tools)
		}

		// The deck page starts a cram session and a study-ahead one.
		b.open("/decks/" + deck.ID)
		b.click("#other-study summary")
		b.submit("#study-cram")
		if !b.exists("#cram") {
			t.Errorf("Cram the deck did not start a cram session: %s", b.text())
		}
		b.open("/decks/" + deck.ID)
		b.click("#other-study summary")
		b.submit("#study-ahead")
		if !strings.Contains(b.location(), "/study/") || b.exists("#cram") {
			t.Errorf("Study ahead: at %s", b.location())
		}
	})
}
