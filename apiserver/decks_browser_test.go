package apiserver_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/contracts"
)

// key presses a key on the page; when it submits a form, waitPage waits
// for the page it leads to.
func (b *browser) key(k string, waitPage bool) {
	b.t.Helper()
	b.do("press "+k, chromedp.Evaluate[chromedp.Void](`window.__tbOldPage = true`), chromedp.KeyEvent(k))
	if !waitPage {
		return
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		loaded, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!window.__tbOldPage && document.readyState === "complete"`))
		if err == nil && loaded {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("browser: pressing %s led to no new page (last error %v)", k, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserSignInDeckPasteStudy is a newcomer's first minutes: sign in
// through the mailer (a real SMTP server receives the link), create a deck,
// paste cards with the preview, and study three cards with the keyboard.
func TestBrowserSignInDeckPasteStudy(t *testing.T) {
	e, srv := mailEnv(t, nil)
	b := newBrowser(t, e)

	// A page that needs a session sends the browser to sign in, and back.
	b.open("/decks")
	if loc := b.location(); loc != "/signin?next=%2Fdecks" {
		t.Fatalf("signed out, /decks went to %s", loc)
	}
	b.look("signin")
	b.fill("#email", testUser)
	b.submit(`form[action="/signin"] button`)
	if !strings.Contains(b.text(), "Check your email") {
		t.Fatalf("after sending the form: %s", b.text())
	}
	b.look("signin-sent")
	link := waitLink(t, srv, 1, testUser)
	b.open(link.RequestURI())
	if !strings.Contains(b.text(), "Sign in as "+testUser) || b.cookie("tb_csrf") != "" {
		t.Fatalf("the link's page: %s", b.text())
	}
	b.look("signin-confirm")
	b.submit("#confirm-sign-in")
	if loc := b.location(); loc != "/decks" || b.cookie("tb_csrf") == "" {
		t.Fatalf("after the button: %s", loc)
	}
	b.look("decks-empty")

	// A deck.
	b.fill("#deck-name", "Capitals")
	b.submit(`form[action="/decks"] button`)
	if !strings.HasPrefix(b.location(), "/decks/") || !strings.Contains(b.text(), "Deck created") {
		t.Fatalf("after creating the deck: %s\n%s", b.location(), b.text())
	}
	deckPath := strings.SplitN(b.location(), "?", 2)[0]

	// Paste: a preview first, then the cards.
	b.submit("#paste-cards")
	b.fill("#text", "France,Paris\nGermany,Berlin\nItaly,Rome\nFrance,Paris\n,no front here")
	b.submit("#preview-cards")
	preview := b.textOf("#preview + p")
	if !strings.Contains(preview, "3 to add") || !strings.Contains(preview, "1 already") || !strings.Contains(preview, "1 cannot be read") {
		t.Fatalf("preview says %q", preview)
	}
	if n := e.cardCount(t, deckPath); n != 0 {
		t.Fatalf("the preview added %d cards", n)
	}
	b.look("paste-preview")
	b.submit("#add-cards")
	if n := e.cardCount(t, deckPath); n != 3 {
		t.Fatalf("%d cards after pasting, want 3", n)
	}
	if txt := b.text(); !strings.Contains(txt, "Germany") || !strings.Contains(txt, "3 cards") {
		t.Fatalf("the deck after pasting:\n%s", txt)
	}
	if !b.exists("#export-deck") {
		t.Error("the deck page has no export button")
	}
	b.look("deck")

	// Study three cards with the keyboard: space reveals, 3 rates Good.
	b.submit("#study-deck")
	if !strings.HasPrefix(b.location(), "/study/") {
		t.Fatalf("study this deck went to %s", b.location())
	}
	b.look("study-front")
	for i := range 3 {
		if evalJS[bool](b, `!document.getElementById("back").hidden`) {
			t.Fatalf("card %d: the answer shows before space", i+1)
		}
		b.key(" ", false)
		if !evalJS[bool](b, `!document.getElementById("back").hidden && !document.getElementById("ratings").hidden`) {
			t.Fatalf("card %d: space did not reveal the answer", i+1)
		}
		if evalJS[bool](b, `getComputedStyle(document.getElementById("reveal")).display !== "none"`) {
			t.Fatalf("card %d: the Show answer button still shows with the answer", i+1)
		}
		// Each button shows the interval its rating gives; rating Good
		// then reports the interval its button showed.
		next := strings.Split(evalJS[string](b, `Array.from(document.querySelectorAll("#ratings button")).map(b => (b.querySelector("[data-next]") || {}).textContent || "").join("|")`), "|")
		if len(next) != 4 || slices.Contains(next, "") {
			t.Fatalf("card %d: the rating buttons show intervals %q, want one on each of the four", i+1, next)
		}
		if i == 0 {
			if !strings.HasSuffix(next[0], "m") || !strings.HasSuffix(next[3], "d") {
				t.Errorf("a new card's intervals %q: want minutes for Again and days for Easy", next)
			}
			b.look("study-back")
		}
		b.key("3", true)
		if want := string(contracts.RatingGood) + ": next in " + next[2]; !strings.Contains(b.text(), want) {
			t.Fatalf("card %d: after Good (button showed %q) the page says:\n%s", i+1, next[2], b.text())
		}
		e.clock.Advance(time.Minute) // the service's clock is the test's
	}
	// Learning steps may bring cards back within the session; rate what
	// is left Easy until the session ends.
	for i := 0; i < 10 && !strings.Contains(b.text(), "Done for now"); i++ {
		e.clock.Advance(11 * time.Minute)
		b.key(" ", false)
		b.key("4", true)
	}
	if txt := b.text(); !strings.Contains(txt, "Done for now") || !strings.Contains(txt, "You studied") {
		t.Fatalf("the end of the session:\n%s", txt)
	}
	b.look("study-done")
	b.checkClean("first minutes")
}

// cardCount is the number of cards in the deck of a /decks/{id} path.
func (e *env) cardCount(t *testing.T, deckPath string) int {
	t.Helper()
	id := strings.TrimPrefix(deckPath, "/decks/")
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	d, err := e.app.Services().Decks.GetDeck(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Counts.Total
}

// TestBrowserStudyLinkFromMCP: an agent starts a session through MCP (the
// official Go SDK client); the person opens the link it printed and
// finishes the session in the browser.
func TestBrowserStudyLinkFromMCP(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "From the agent"}, &deck)
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "**Bonjour**", "back": "Hello"}, {"front": "Merci", "back": "Thank you"},
	}}, nil)
	var sess contracts.StudySession
	call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
	u, err := url.Parse(sess.StudyURL)
	if err != nil || !strings.HasPrefix(sess.StudyURL, e.base+"/study/") {
		t.Fatalf("studyUrl %q", sess.StudyURL)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open(u.RequestURI())
	if html := b.html(); !strings.Contains(html, "<strong>Bonjour</strong>") {
		t.Fatalf("the study page does not show the rendered front:\n%s", b.text())
	}
	b.look("study-from-agent")
	for i := 0; i < 12 && !strings.Contains(b.text(), "Done for now"); i++ {
		e.clock.Advance(time.Minute)
		b.click("#reveal")
		b.submit(`button[data-rating="4"]`)
	}
	if txt := b.text(); !strings.Contains(txt, "You studied 2 cards") {
		t.Fatalf("the end of the agent's session:\n%s", txt)
	}
	var after contracts.StudySession
	call(t, cs, "render_study_session", map[string]any{"sessionId": sess.ID}, &after)
	if !after.Done || after.Reviewed != 2 {
		t.Errorf("the agent sees the session as %+v, want done after 2 reviews", after)
	}
	b.checkClean("study link")
}
