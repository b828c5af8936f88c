package apiserver_test

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserCardEditorMedia: an image dropped into a new card's front is
// uploaded through the media service and its reference put in the field;
// the card is added and studied with the image shown. Ctrl+Shift+C in a
// Cloze note's field makes the selection c1, then c2, and the note makes
// two cards. A file that is neither image nor sound is refused with the
// reason (issue 31 §11).
func TestBrowserCardEditorMedia(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		deck := seedDeck(t, e, "Pictures", 0)
		svc := e.app.Services()
		ctx := e.asUser(t)
		b := newBrowser(t, e)
		b.signIn(testUser)

		// Drop a PNG into the front.
		b.open("/decks/" + deck.ID)
		b.do("drop an image", chromedp.Evaluate[chromedp.Void](`(() => {
			const s = atob("`+base64.StdEncoding.EncodeToString([]byte(tinyPNG))+`"), bytes = new Uint8Array(s.length);
			for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
			const dt = new DataTransfer();
			dt.items.add(new File([bytes], "map.png", {type: "image/png"}));
			document.querySelector("#front").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		})()`))
		var front string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if front = evalJS[string](b, `document.querySelector("#front").value`); strings.Contains(front, "media:") {
				break
			}
		}
		ref := regexp.MustCompile(`^!\[map\]\(media:([A-Za-z0-9_-]+)\)$`).FindStringSubmatch(front)
		if ref == nil {
			t.Fatalf("after dropping the image the front holds %q; the editor says %q", front, b.textOf("[data-editor-status]"))
		}
		if got := b.textOf("#add-card [data-editor-status]"); got != "map.png added." {
			t.Errorf("the editor says %q", got)
		}
		b.fill("#back", "A map")
		b.look("editor")
		b.submit("#add-card button[type=submit]")
		found, err := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: deck.ID})
		if err != nil || len(found.Items) != 1 || found.Items[0].Front != front {
			t.Fatalf("cards after adding: %+v, %v", found.Items, err)
		}

		// Cloze deletions with the shortcut.
		b.open("/decks/" + deck.ID + "?type=Cloze")
		b.fill("#field-0", "Paris is the capital of France")
		shortcut := func(from, to int) {
			b.do("cloze", chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector("#field-0"); f.focus(); f.setSelectionRange(`+strconv.Itoa(from)+`, `+strconv.Itoa(to)+`);
				f.dispatchEvent(new KeyboardEvent("keydown", {key: "C", ctrlKey: true, shiftKey: true, bubbles: true, cancelable: true})); })()`))
		}
		shortcut(0, 5)
		shortcut(32, 38) // "France", after the 8 characters of {{c1::…}} added
		if got := evalJS[string](b, `document.querySelector("#field-0").value`); got != "{{c1::Paris}} is the capital of {{c2::France}}" {
			t.Fatalf("after two Ctrl+Shift+C: %q", got)
		}
		b.submit("#add-note-button")
		if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: deck.ID}); len(found.Items) != 3 {
			t.Errorf("the deck holds %d cards, want the image card and two cloze cards", len(found.Items))
		}

		// Study until the image card comes; its image loads.
		b.open("/decks/" + deck.ID)
		b.submit("#study-deck")
		for i := 0; !b.exists("#front img"); i++ {
			if i > 3 {
				t.Fatal("the image card never came")
			}
			b.submit("#bury")
		}
		w := 0
		for deadline := time.Now().Add(5 * time.Second); w == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			w = evalJS[int](b, `(() => { const i = document.querySelector("#front img"); return i.complete ? i.naturalWidth : 0; })()`)
		}
		if w != 1 {
			t.Errorf("the studied image is %d px wide, want the 1 px PNG", w)
		}
		b.look("study-image")

		// Not an image or a sound: refused with the reason.
		cookies, csrf := e.signIn(t, testUser)
		resp, body := e.request(t, http.MethodPost, "/editor/upload", `{"contentType":"application/pdf","bytes":100,"filename":"a.pdf"}`,
			http.Header{"Content-Type": {"application/json"}, "X-CSRF-Token": {csrf}, "Origin": {e.base}}, cookies...)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "a card takes images") {
			t.Errorf("a PDF: %d %s", resp.StatusCode, body)
		}
	})
}
