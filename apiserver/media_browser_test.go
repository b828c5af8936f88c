package apiserver_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// picture draws a small PNG: a sky, a sea and a sun, so a screenshot shows
// whether the image arrived.
func picture(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 320, 160))
	for y := range 160 {
		for x := range 320 {
			c := color.RGBA{R: 120, G: 180, B: 235, A: 255}
			if y > 100 {
				c = color.RGBA{R: 20, G: 90, B: 160, A: 255}
			}
			if dx, dy := x-240, y-50; dx*dx+dy*dy < 600 {
				c = color.RGBA{R: 250, G: 200, B: 40, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBrowserStudyMedia: an agent uploads a picture and a sound and puts
// them on a card; the study page shows the picture (loaded under the
// page's CSP) and an audio player for the sound.
func TestBrowserStudyMedia(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	pic := picture(t)
	img := intent(t, cs, "image/png", len(pic), "harbour.png")
	if code, body := e.put(t, img, string(pic), nil); code != 204 {
		t.Fatalf("upload: %d %s", code, body)
	}
	snd := intent(t, cs, "audio/wav", len(tinyWAV), "lisboa.wav")
	if code, body := e.put(t, snd, tinyWAV, nil); code != 204 {
		t.Fatalf("upload: %d %s", code, body)
	}
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Harbours"}, &deck)
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "Which city's harbour is this?\n\n![A harbour under a yellow sun](media:" + img.MediaID + ")", "back": "**Lisbon** [sound:" + snd.MediaID + "]"},
	}}, nil)
	var sess contracts.StudySession
	call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
	u, err := url.Parse(sess.StudyURL)
	if err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open(u.RequestURI())
	if w := evalJS[int64](b, `(() => { const i = document.querySelector("#front img"); return i && i.complete ? i.naturalWidth : -1 })()`); w != 320 {
		t.Fatalf("the card's picture did not load (naturalWidth %d):\n%s", w, b.html())
	}
	if alt := evalJS[string](b, `document.querySelector("#front img").alt`); alt != "A harbour under a yellow sun" {
		t.Errorf("alt %q", alt)
	}
	b.look("study-media-front")
	b.click("#reveal")
	src := evalJS[string](b, `(() => { const a = document.querySelector("#back audio"); return a ? a.getAttribute("src") : "" })()`)
	if src != "/media/"+snd.MediaID || !strings.Contains(b.html(), "<strong>Lisbon</strong>") {
		t.Fatalf("the back has no audio player for the sound (src %q):\n%s", src, b.html())
	}
	// The player can read the file: the browser fetched its header.
	if d := evalJS[bool](b, `(async () => { const r = await fetch(document.querySelector("#back audio").src); return r.ok && r.headers.get("content-type") === "audio/wav" })()`); !d {
		t.Error("the sound is not readable from the page")
	}
	b.look("study-media-back")
	b.checkClean("study with media")
}
