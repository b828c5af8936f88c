package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// setOffline takes the browser off the network (every request fails and
// navigator.onLine is false, as on a phone in a tunnel) or puts it back.
func (b *browser) setOffline(off bool) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		b.t.Fatalf("enabling the network domain: %v", err)
	}
	if _, err := chromedp.Call(b.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		b.t.Fatalf("network conditions offline=%v: %v", off, err)
	}
	if _, err := chromedp.Call(b.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{
		Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
	}); err != nil {
		b.t.Fatalf("network state offline=%v: %v", off, err)
	}
}

// waitJS polls a JavaScript condition until it holds (or fails the test).
func (b *browser) waitJS(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !evalJS[bool](b, cond) {
		if time.Now().After(deadline) {
			b.checkClean(what)
			b.t.Fatalf("waiting for %s (%s); focus on %s; the page says:\n%s", what, cond, evalJS[string](b, `document.activeElement.outerHTML`), b.text())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBrowserOfflineReviews (issue 31 §14, Done when): a study page goes
// on offline with the cards it loaded ahead (a type-in card and a picture
// among them, the picture shown from the page's memory);
// four ratings given offline wait on the device while the server has
// none; meanwhile the agent rates the fourth card. Back online the page
// sends them in order: the three are in their cards' histories at the
// times they were given (spaced as the ratings were, before the network
// came back), the fourth is reported as not applied; a resend of a sent
// rating is never applied twice; the next rating goes to the server as
// usual. Screenshots offline and back online at 360 and 1280 px, light and
// dark.
func TestBrowserOfflineReviews(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		deck := seedDeck(t, e, "Commute", 1)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": []map[string]any{
			{"noteType": contracts.NoteTypeBasicTypeIn, "fields": map[string]string{"Front": "Capital of Italy?", "Back": "Rome"}}}}, nil)
		b := newBrowser(t, e)
		b.signIn(testUser)
		b.open("/decks/" + deck.ID)
		b.dropFile("#front", "sea.png", "image/png", picture(t))
		b.waitJS("the image's reference", `document.querySelector("#front").value.includes("media:")`)
		b.fill("#back", "The sea")
		b.submit("#add-card button[type=submit]")
		var more []map[string]any
		for i := 2; i <= 7; i++ {
			more = append(more, map[string]any{"front": fmt.Sprintf("Front %03d", i), "back": fmt.Sprintf("Back %03d", i)})
		}
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": more}, nil)
		u, _, err := e.app.EnsureUser(context.Background(), testUser, "")
		if err != nil {
			t.Fatal(err)
		}
		ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
		svc := e.app.Services()

		b.open("/decks/" + deck.ID)
		b.submit("#study-deck")
		started := time.Now()
		b.waitJS("the cards loaded ahead", `Number(document.querySelector("[data-study]").getAttribute("data-ahead")) >= 4`)
		session := b.attr("[data-study]", "data-session")

		// Offline: four ratings, 1.2 s apart.
		b.setOffline(true)
		b.waitJS("the page to know it is offline", `!navigator.onLine`)
		ratings := []string{"good", "again", "easy", "hard"}
		var cards, positions []string
		var clicks []time.Time
		sawTypeIn, sawImage := false, false
		for i, r := range ratings {
			if i > 0 {
				time.Sleep(1200 * time.Millisecond)
			}
			cards = append(cards, b.attr("input[name=cardId]", "value"))
			positions = append(positions, b.attr("input[name=position]", "value"))
			if b.exists("#front img") {
				sawImage = true
				b.waitJS("the picture, offline", `(i => i.complete && i.naturalWidth === 320)(document.querySelector("#front img"))`)
				if src := b.attr("#front img", "src"); !strings.HasPrefix(src, "data:image/png;base64,") {
					t.Errorf("offline, the picture is loaded from %.40q, not from the page's memory", src)
				}
			}
			if b.exists("#typed") {
				sawTypeIn = true
				b.do("type", chromedp.SendKeys("#typed", "Rome\n"))
			} else {
				b.key(" ", false)
			}
			b.waitJS("the answer", `!document.querySelector("#back").hidden`)
			if i == 0 {
				if b.exists("#card-actions:not([hidden])") {
					t.Error("offline, the card's edit, bury, suspend and mark stay offered")
				}
				b.look("study-offline-answer")
			} else if n := evalJS[int](b, `document.querySelectorAll("#ratings [data-next]").length`); n != 0 {
				t.Errorf("card %d offline shows %d intervals, the first card's", i, n)
			}
			clicks = append(clicks, time.Now())
			b.click(fmt.Sprintf("button[value=%q]", r))
			b.waitJS("the next card", fmt.Sprintf(`document.querySelector("input[name=cardId]").value !== %q || document.querySelector("#offline-done") !== null`, cards[i]))
		}
		// Shift+1 flags a card online; offline it leaves the page as it is.
		shown := b.attr("input[name=cardId]", "value")
		b.key("!", false) // chromedp types "!" as Shift+1
		time.Sleep(300 * time.Millisecond)
		if got := b.attr("input[name=cardId]", "value"); got != shown || !evalJS[bool](b, `document.querySelector("#offline-status") !== null`) {
			t.Errorf("offline, Shift+1 left the page (card %s, was %s)", got, shown)
		}
		if !sawTypeIn || !sawImage {
			t.Errorf("among the cards studied offline: a type-in card %v, a picture %v", sawTypeIn, sawImage)
		}
		if got := b.textOf("#offline-status"); !strings.Contains(got, "You are offline: 4 ratings kept on this device") {
			t.Errorf("offline, the page says %q", got)
		}
		if got := b.textOf("#left"); got != "5 left · 4 waiting to be sent" {
			t.Errorf("the counter offline: %q", got)
		}
		for i, c := range cards {
			if h, err := svc.Cards.CardHistory(ctx, c); err != nil || len(h) != 0 {
				t.Fatalf("card %d has %d reviews on the server while offline (%v)", i, len(h), err)
			}
		}
		b.look("study-offline")

		// The service's clock stands still in tests: it moves on as the
		// browser's did. The agent then rates the fourth card, after it
		// was rated offline, in its own session.
		time.Sleep(2 * time.Second)
		e.clock.Advance(time.Since(started))
		online := time.Now()
		now := e.clock.Now()
		other, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID, ReviewAheadDays: 0})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: other.ID, CardID: cards[3], Rating: contracts.RatingGood}); err != nil {
			t.Fatalf("the agent's review of the fourth card: %v", err)
		}
		b.setOffline(false)
		b.waitJS("the report", `(document.querySelector("#offline-report") || {}).textContent !== undefined && document.querySelector("#offline-report").textContent.includes("dropped")`)
		report := b.textOf("#offline-report")
		if !strings.Contains(report, "3 ratings given offline were sent") || !strings.Contains(report, "1 rating could not be applied") || !strings.Contains(report, "reviewed again after this rating was given") {
			t.Errorf("back online, the report: %q", report)
		}
		if got := b.textOf("#left"); got != "5 left" {
			t.Errorf("the counter back online: %q, want 5 left (9 less the 4 rated here)", got)
		}
		if n := evalJS[int](b, `JSON.parse(localStorage.getItem("tb-queued-reviews") || "[]").length`); n != 0 {
			t.Errorf("%d ratings still wait on the device", n)
		}
		b.look("study-back-online")

		// Each of the three is in its card's history at the time it was
		// given: as far apart as the ratings were, and as long before the
		// network came back.
		var at []time.Time
		for i, c := range cards[:3] {
			h, err := svc.Cards.CardHistory(ctx, c)
			if err != nil || len(h) != 1 || string(h[0].Rating) != ratings[i] {
				t.Fatalf("card %d's history: %+v, %v; want one %s review", i, h, err, ratings[i])
			}
			at = append(at, h[0].ReviewedAt)
			ago, want := now.Sub(h[0].ReviewedAt), online.Sub(clicks[i])
			if d := ago - want; d < -time.Second || d > time.Second {
				t.Errorf("card %d was reviewed %s before the network came back; it was rated %s before", i, ago, want)
			}
		}
		for i := 1; i < 3; i++ {
			if gap, want := at[i].Sub(at[i-1]), clicks[i].Sub(clicks[i-1]); gap-want < -500*time.Millisecond || gap-want > 500*time.Millisecond {
				t.Errorf("reviews %d and %d are %s apart; they were given %s apart", i-1, i, gap, want)
			}
		}
		if h, _ := svc.Cards.CardHistory(ctx, cards[3]); len(h) != 1 || h[0].Rating != contracts.RatingGood {
			t.Errorf("the fourth card's history %+v: only the agent's review", h)
		}
		// The history page lists the review.
		b.open("/cards/" + cards[0])
		if rows := evalJS[int](b, `document.querySelectorAll("#card-history tbody tr").length`); rows != 1 {
			t.Errorf("the card page lists %d reviews", rows)
		}

		// A resend of the first rating (a page that did not hear the
		// answer) is answered as replayed and applied once.
		cookies, csrf := e.signIn(t, testUser)
		form := url.Values{"cardId": {cards[0]}, "position": {positions[0]}, "rating": {ratings[0]}, "agoMs": {"5000"}, "durationMs": {"1000"}}
		resp, body := e.request(t, http.MethodPost, "/study/"+session+"/queued", form.Encode(),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-CSRF-Token": {csrf}, "Origin": {e.base}}, cookies...)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"replayed"`) {
			t.Errorf("a resend: %d %s", resp.StatusCode, body)
		}
		if h, _ := svc.Cards.CardHistory(ctx, cards[0]); len(h) != 1 {
			t.Errorf("after a resend the card has %d reviews", len(h))
		}

		// Online again, the study page rates through the server as usual.
		b.open("/study/" + session)
		b.key(" ", false)
		b.submit(`button[value="good"]`)
		if loc := b.location(); !strings.Contains(loc, "rated=1") {
			t.Errorf("rating online led to %s", loc)
		}
		b.checkClean("offline study")
	})
}
