package apiserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserEditorPreview (issue 31 §11): under each editor form the
// cards it would make show as they will study, and follow each change: a
// card's Markdown rendered; a picture dropped into the front, loaded; a
// cloze note's two cards, the deletion highlighted; a field over the limit
// says why there is no preview; the edit page of a note shows its card.
// Screenshots at 360 and 1280 px, light and dark.
func TestBrowserEditorPreview(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		deck := seedDeck(t, e, "Previewed", 0)
		b := newBrowser(t, e)
		b.signIn(testUser)

		b.open("/decks/" + deck.ID)
		if b.exists("#add-card-preview:not([hidden])") {
			t.Error("an empty form shows a preview")
		}
		b.fill("#front", "What is **bold**?")
		b.fill("#back", "*This*")
		b.do("type", chromedpInput("#back"))
		b.waitJS("the preview", `!!(c => c && c.querySelector(".face strong"))(document.querySelector("#add-card-preview .preview-card"))`)
		if got := b.textOf("#add-card-preview .preview-card .back"); got != "This" {
			t.Errorf("the preview's answer: %q", got)
		}
		b.dropFile("#front", "sea.png", "image/png", picture(t))
		b.waitJS("the picture in the preview", `!!(i => i && i.complete && i.naturalWidth === 320)(document.querySelector("#add-card-preview img"))`)
		b.look("editor-preview-card")

		b.open("/decks/" + deck.ID + "?type=Cloze")
		b.fill("#field-0", "{{c1::Paris}} is the capital of {{c2::France}}")
		b.do("type", chromedpInput("#field-0"))
		b.waitJS("the cloze cards", `document.querySelectorAll("#add-note-preview .preview-card").length === 2`)
		if got := b.textOf("#add-note-preview .preview-card .face"); !strings.Contains(got, "[...] is the capital of France") {
			t.Errorf("the first cloze card's question: %q", got)
		}
		if w := evalJS[string](b, `getComputedStyle(document.querySelector("#add-note-preview .cloze")).fontWeight`); w != "700" {
			t.Errorf("the preview's cloze is not highlighted (weight %s)", w)
		}
		b.look("editor-preview-cloze")
		b.fill("#field-0", strings.Repeat("x", contracts.MaxCardSideLen+1))
		b.do("type", chromedpInput("#field-0"))
		b.waitJS("the reason", `document.querySelector("#add-note-preview").textContent.includes("No preview")`)
		if got := b.textOf("#add-note-preview"); !strings.Contains(got, "limit") {
			t.Errorf("over the limit the preview says %q", got)
		}

		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		var res contracts.BulkResult
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": []map[string]any{
			{"noteType": contracts.NoteTypeBasicReversed, "fields": map[string]string{"Front": "der Hund", "Back": "the dog"}}}}, &res)
		b.open("/notes/" + res.Items[0].ID + "/edit")
		b.waitJS("the note's cards", `document.querySelectorAll("#edit-note-preview .preview-card").length === 2`)
		if got := b.textOf("#edit-note-preview"); !strings.Contains(got, "der Hund") || !strings.Contains(got, "the dog") {
			t.Errorf("the note's preview: %q", got)
		}
		b.checkClean("editor preview")
	})
}

// chromedpInput fires an input event on the field sel, as typing does
// (chromedp's SetValue fires none).
func chromedpInput(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event("input", {bubbles: true}))`, sel))
}
