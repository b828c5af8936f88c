package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserCardBrowser: /cards pages through every deck's cards (130
// cards in three decks, each reached once), lists nested decks as a tree,
// searches with the search syntax, and applies each bulk action to the
// chosen cards (suspend, move with "choose every card of this page", tag,
// bury, delete), each done through the services, audited under the tool's
// name and said on the page; a bulk action without a card is refused
// with the reason; a card's info page shows its schedule (issue 31 §10).
func TestBrowserCardBrowser(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		langs := seedDeck(t, e, "Langs", 0)
		french := seedDeck(t, e, "Langs::French", 60)
		spanish := seedDeck(t, e, "Spanish", 70)
		ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
		svc := e.app.Services()
		b := newBrowser(t, e)
		b.signIn(testUser)

		// Every card once, page after page.
		b.open("/cards")
		ids := pageThrough(t, b)
		if len(ids) != 130 {
			t.Fatalf("paging /cards reached %d of 130 cards", len(ids))
		}
		// Sorted, highest first: the "More cards" links keep the order.
		b.open("/cards?sort=added&order=desc")
		if ids := pageThrough(t, b); len(ids) != 130 {
			t.Errorf("paging /cards by added, newest first, reached %d of 130 cards", len(ids))
		}
		if got := evalJS[string](b, `document.querySelector("#sort").value + " " + document.querySelector("#order").value`); got != "added desc" {
			t.Errorf("the sort form shows %q, want the chosen order", got)
		}
		options := evalJS[[]string](b, `[...document.querySelectorAll("#deck option")].map(o => o.textContent)`)
		if want := []string{"All decks", "Langs", "\u00a0\u00a0\u00a0French", "Spanish"}; !slices.Equal(options, want) {
			t.Errorf("deck options %q, want the tree %q", options, want)
		}
		b.open("/cards?deck=" + french.ID)
		if ids := pageThrough(t, b); len(ids) != 60 {
			t.Errorf("Langs::French shows %d cards, want 60", len(ids))
		}
		b.open("/cards?" + url.Values{"q": {"Front 007"}}.Encode())
		if n := evalJS[int](b, `document.querySelectorAll('#browse input[name="card"]').length`); n != 2 {
			t.Errorf("searching Front 007 shows %d cards, want 2 (one a deck)", n)
		}

		// Suspend three chosen cards.
		b.open("/cards?deck=" + spanish.ID)
		b.look("cards")
		chosen := evalJS[[]string](b, `[...document.querySelectorAll('#browse input[name="card"]')].slice(0, 3).map(c => { c.checked = true; return c.value; })`)
		b.do("choose suspend", chromedpSetSelect("#bulk-action", "suspend"))
		b.submit("#bulk-apply")
		if got := b.textOf(".flash"); got != "3 cards suspended." {
			t.Errorf("after suspending, the page says %q", got)
		}
		found, err := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "suspended"})
		if err != nil || !sameIDs(found.Items, chosen) {
			t.Errorf("suspended cards %v, want %v (%v)", cardIDs(found.Items), chosen, err)
		}
		b.open("/cards?q=is:suspended")
		if n := evalJS[int](b, `document.querySelectorAll('#browse input[name="card"]').length`); n != 3 {
			t.Errorf("is:suspended shows %d cards, want 3", n)
		}

		// Move the Spanish deck's first page (every card of it) to Langs.
		b.open("/cards?deck=" + spanish.ID)
		b.click("#select-all")
		b.do("choose move", chromedpSetSelect("#bulk-action", "move"))
		b.do("choose Langs", chromedpSetSelect("#bulk-deck", langs.ID))
		b.submit("#bulk-apply")
		if got := b.textOf(".flash"); got != "50 cards moved." {
			t.Errorf("after moving, the page says %q", got)
		}
		// A deck's counts hold the decks below it (issue 27 §4): Langs's
		// 50 and Langs::French's 60.
		if d, _ := svc.Decks.GetDeck(ctx, langs.ID); d.Counts.Total != 110 {
			t.Errorf("Langs holds %d cards after the move, want 110 (50 moved, 60 in Langs::French)", d.Counts.Total)
		}

		// Tag two, bury one, delete one.
		b.open("/cards?deck=" + spanish.ID)
		tagged := evalJS[[]string](b, `[...document.querySelectorAll('#browse input[name="card"]')].slice(0, 2).map(c => { c.checked = true; return c.value; })`)
		b.do("choose tag", chromedpSetSelect("#bulk-action", "tag"))
		b.fill("#bulk-tag", "verb")
		b.submit("#bulk-apply")
		if got := b.textOf(".flash"); got != "2 cards tagged." {
			t.Errorf("after tagging, the page says %q", got)
		}
		if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Tags: []string{"verb"}}); !sameIDs(found.Items, tagged) {
			t.Errorf("cards tagged verb %v, want %v", cardIDs(found.Items), tagged)
		}
		// Flag both purple; flag:7 finds them, and the list shows the flag.
		for _, id := range tagged {
			b.click("#pick-" + id)
		}
		b.do("choose flag", chromedpSetSelect("#bulk-action", "flag"))
		b.do("choose purple", chromedpSetSelect("#bulk-flag", "7"))
		b.submit("#bulk-apply")
		if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "flag:7"}); !sameIDs(found.Items, tagged) {
			t.Errorf("cards flagged purple %v, want %v (page says %q)", cardIDs(found.Items), tagged, b.textOf(".flash"))
		}
		if n := evalJS[int](b, `document.querySelectorAll("#browse .flag-7").length`); n != 2 {
			t.Errorf("the list shows %d purple flags, want 2", n)
		}
		b.click("#pick-" + tagged[0])
		b.do("choose bury", chromedpSetSelect("#bulk-action", "bury"))
		b.submit("#bulk-apply")
		if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "buried"}); !sameIDs(found.Items, tagged[:1]) {
			t.Errorf("buried cards %v, want %v", cardIDs(found.Items), tagged[:1])
		}
		b.click("#pick-" + tagged[1])
		b.do("choose delete", chromedpSetSelect("#bulk-action", "delete"))
		b.submit("#bulk-apply")
		if got := b.textOf(".flash"); !strings.HasPrefix(got, "1 card deleted") {
			t.Errorf("after deleting, the page says %q", got)
		}
		if _, err := svc.Cards.GetCard(ctx, tagged[1]); !contracts.IsKind(err, contracts.KindNotFound) {
			t.Errorf("the deleted card is still there: %v", err)
		}
		events, err := svc.Audit.List(ctx, contracts.AuditFilter{}, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]int{}
		for _, ev := range events.Items {
			tools[ev.Tool]++
		}
		if tools[contracts.ToolUpdateCards] != 4 || tools[contracts.ToolBuryCards] != 1 || tools[contracts.ToolDeleteCards] != 1 {
			t.Errorf("audited %v, want update_cards 4 (suspend, move, tag, flag), bury_cards 1, delete_cards 1", tools)
		}

		// A card's info page: its schedule and its review history, newest first.
		sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: french.ID})
		if err != nil || sess.Current == nil {
			t.Fatalf("session %+v, %v", sess, err)
		}
		studied := sess.Current.CardID
		for _, rating := range []contracts.Rating{contracts.RatingAgain, contracts.RatingGood} {
			s, err := svc.Study.GetSession(ctx, sess.ID)
			if err != nil || s.Current == nil || s.Current.CardID != studied {
				t.Fatalf("session %+v, %v", s.Current, err)
			}
			pos := s.Current.Position
			if _, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: studied, Position: &pos, Rating: rating, DurationMs: 4000}); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(2 * time.Minute) // the Again step comes back
		}
		b.open("/cards/" + studied)
		if got := b.textOf("#card-state"); !strings.Contains(got, "State") || !strings.Contains(got, "Stability") || !strings.Contains(got, "Lapses") {
			t.Errorf("card info: %q", got)
		}
		rows := evalJS[[]string](b, `[...document.querySelectorAll("#card-history tbody tr td:nth-child(2)")].map(td => td.textContent.trim())`)
		if !slices.Equal(rows, []string{"Good", "Again"}) {
			t.Errorf("the card's history shows ratings %q, want Good then Again\n%s", rows, evalJS[string](b, `document.querySelector("#card-history").outerHTML`))
		}
		if got := b.textOf("#card-history tbody tr td:last-child"); got != "4 s" {
			t.Errorf("the last review took %q", got)
		}
		b.look("card-info")

		// A search that cannot run is said above the form, which keeps it.
		cookies, csrf := e.signIn(t, testUser)
		long := strings.Repeat("x", 600)
		resp, body := e.request(t, http.MethodGet, "/cards?q="+long, nil, nil, cookies...)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "query must be") || !strings.Contains(string(body), `value="`+long+`"`) {
			t.Errorf("a too long search: %d\n%s", resp.StatusCode, body)
		}

		// Nothing chosen: refused with what to do.
		resp, body = e.postForm(t, "/cards/bulk", url.Values{"csrf_token": {csrf}, "action": {"suspend"}}, http.Header{"Origin": {e.base}}, cookies...)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "No card was chosen") {
			t.Errorf("a bulk action without cards: %d\n%s", resp.StatusCode, body)
		}
	})
}

// pageThrough follows "More cards" from the page open in b to the last
// page and returns the ids of the cards shown, failing on one shown twice.
func pageThrough(t *testing.T, b *browser) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	for page := 1; page <= 20; page++ {
		for _, id := range evalJS[[]string](b, `[...document.querySelectorAll('#browse input[name="card"]')].map(c => c.value)`) {
			if seen[id] {
				t.Fatalf("page %d shows card %s again (%s)", page, id, b.location())
			}
			seen[id] = true
			ids = append(ids, id)
		}
		if !b.exists("#more-cards") {
			return ids
		}
		b.submit("#more-cards")
	}
	t.Fatal("more than 20 pages")
	return nil
}

func cardIDs(cards []contracts.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}

// sameIDs reports whether cards are exactly the cards of ids, in any order.
func sameIDs(cards []contracts.Card, ids []string) bool {
	got, want := cardIDs(cards), slices.Clone(ids)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}
