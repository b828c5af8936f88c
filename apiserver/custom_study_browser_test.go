package apiserver_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// cardsInDeck returns the cards deck id holds now, by id.
func cardsInDeck(t *testing.T, e *env, ctx context.Context, deckID string) map[string]contracts.Card {
	t.Helper()
	page, err := e.app.Services().Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: deckID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contracts.Card{}
	for _, c := range page.Items {
		out[c.ID] = c
	}
	return out
}

// rateEasy rates the first n cards a session of deck shows Easy (new
// cards become review cards with a schedule of their own).
func rateEasy(t *testing.T, e *env, ctx context.Context, deckID string, n int) {
	t.Helper()
	svc := e.app.Services()
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deckID})
	if err != nil {
		t.Fatal(err)
	}
	cur := sess.Current
	for i := range n {
		if cur == nil {
			t.Fatalf("the session ran out after %d cards", i)
		}
		res, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: cur.CardID, Rating: contracts.RatingEasy})
		if err != nil {
			t.Fatal(err)
		}
		cur = res.Next
	}
}

// TestBrowserCustomStudy is custom study from the deck page (issue 31
// §12, issue 28 §4's web page), on both databases: the deck page's Custom
// study opens a form prefilled with the deck's search and quick choices;
// a bad search word, a taken name and a limit of 0 are each refused
// beside their field with what was typed kept; the built filtered deck
// shows its search and cards and is marked in the deck list; studying it
// with rescheduling off (a cram session) leaves every card's schedule as
// it was; a refused rebuild keeps its input, a rebuild gathers again,
// Empty sends every card home, and Delete (after a rebuild) sends them
// home too, schedules unchanged throughout.
func TestBrowserCustomStudy(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		deck := seedDeck(t, e, "Spanish verbs", 6)
		ctx := e.asUser(t)
		rateEasy(t, e, ctx, deck.ID, 3)
		e.clock.Advance(time.Hour) // the test's clock stands still: the next ratings come later
		before := cardsInDeck(t, e, ctx, deck.ID)
		reviews := 0
		for _, c := range before {
			if c.State.Phase == contracts.PhaseReview {
				reviews++
			}
		}
		if len(before) != 6 || reviews != 3 {
			t.Fatalf("seeded %d cards, %d in review; want 6 and 3", len(before), reviews)
		}
		// schedulesKept checks every card is in deck with the schedule it had.
		schedulesKept := func(what, deckID string) {
			t.Helper()
			now := cardsInDeck(t, e, ctx, deckID)
			if len(now) != len(before) {
				t.Errorf("%s: %d cards in the deck, want %d", what, len(now), len(before))
			}
			for id, c := range before {
				if got, ok := now[id]; !ok || !reflect.DeepEqual(got.State, c.State) {
					t.Errorf("%s: card %s (in the deck %v): schedule %+v, want %+v", what, id, ok, got.State, c.State)
				}
			}
		}

		b := newBrowser(t, e)
		b.signIn(testUser)
		b.open("/decks/" + deck.ID)
		b.submit("#custom-study")
		if got := b.location(); got != "/decks/"+deck.ID+"/custom" {
			t.Fatalf("Custom study led to %s", got)
		}
		value := func(sel string) string { return evalJS[string](b, `document.querySelector("`+sel+`").value`) }
		if s, n := value("#search"), value("#name"); s != `deck:"Spanish verbs"` || n != "Custom study: Spanish verbs" {
			t.Errorf("the form's search %q and name %q, want the deck's", s, n)
		}
		if got := b.attr("#limit", "type") + " " + b.attr("#limit", "min") + "-" + b.attr("#limit", "max"); got != "number 1-1000" {
			t.Errorf("#limit is %q, want the catalog's number 1-1000", got)
		}
		b.look("custom-study")

		// A quick choice fills the form.
		b.submit("#preset-forgotten")
		if s, o := value("#search"), value("#order"); s != `deck:"Spanish verbs" prop:lapses>=1` || o != contracts.FilteredOrderLapses {
			t.Errorf("Review forgotten cards: search %q, order %q", s, o)
		}
		b.submit("#preset-ahead")
		if !evalJS[bool](b, `document.querySelector("#reschedule").checked`) || b.attr("#preset-ahead", "aria-current") != "true" {
			t.Error("Review ahead does not reschedule or is not marked as chosen")
		}
		b.open("/decks/" + deck.ID + "/custom")

		// Refusals: each beside its field, everything typed kept.
		b.fill("#name", "Verbs cram")
		b.fill("#search", `deck:"Spanish verbs" is:sleeping`)
		b.fill("#limit", "50")
		b.submitUnchecked("#build-filtered")
		b.refusedField("#search", `deck:"Spanish verbs" is:sleeping`, "is:sleeping")
		if n, l := value("#name"), b.attr("#limit", "value"); n != "Verbs cram" || l != "50" {
			t.Errorf("after the refused search: name %q, limit %q", n, l)
		}
		b.look("custom-study-refused")
		b.fill("#search", `deck:"Spanish verbs"`)
		b.fill("#name", "Spanish verbs")
		b.submitUnchecked("#build-filtered")
		b.refusedField("#name", "Spanish verbs", "already exists")
		b.fill("#name", "Verbs cram")
		b.fill("#limit", "0")
		b.submitUnchecked("#build-filtered")
		b.refusedField("#limit", "0", "limit")
		if s := value("#search"); s != `deck:"Spanish verbs"` {
			t.Errorf("after the refused limit the search is %q", s)
		}

		// Built: the filtered deck's page.
		b.fill("#limit", "100")
		b.submit("#build-filtered")
		loc := b.location()
		filteredID := strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/decks/")
		if !strings.HasPrefix(loc, "/decks/") || filteredID == deck.ID {
			t.Fatalf("building led to %s", loc)
		}
		if f := b.textOf(".flash"); !strings.Contains(f, "6 cards") {
			t.Errorf("the flash after building: %q", f)
		}
		if !b.exists("#filtered-badge") || b.textOf("#filtered-search") != `deck:"Spanish verbs"` ||
			!strings.HasPrefix(b.textOf("#filtered-cards"), "6 cards") || !strings.Contains(b.textOf("#filtered-reschedule"), "change no schedule") {
			t.Errorf("the filtered deck's page:\n%s", b.text())
		}
		// A session of it serves all 6 cards: the counts say so.
		if got := b.textOf("#deck-counts"); !strings.HasPrefix(got, "6 cards · 3 to review · 3 new") {
			t.Errorf("the filtered deck's counts: %q", got)
		}
		if b.exists("#add-card") || b.exists("#custom-study") {
			t.Error("the filtered deck's page offers adding cards or custom study")
		}
		b.look("filtered-deck")
		schedulesKept("gathered", filteredID)
		if n := len(cardsInDeck(t, e, ctx, deck.ID)); n != 0 {
			t.Errorf("%d cards left at home, want all 6 gathered", n)
		}

		// Its settings page says what applies to a filtered deck.
		b.open("/decks/" + filteredID + "/settings")
		if !b.exists("#filtered-settings-note") {
			t.Error("the filtered deck's settings page does not say it is filtered")
		}
		b.open("/decks/" + deck.ID + "/settings")
		if b.exists("#filtered-settings-note") {
			t.Error("a plain deck's settings page calls it filtered")
		}

		// The deck list marks it.
		b.open("/decks")
		marked := evalJS[[]string](b, `[...document.querySelectorAll("#deck-list tbody tr")].filter(r => r.querySelector(".badge.filtered")).map(r => r.querySelector("a").textContent)`)
		if !reflect.DeepEqual(marked, []string{"Verbs cram"}) {
			t.Errorf("the deck list marks %q as filtered, want only Verbs cram", marked)
		}
		counts := evalJS[[]string](b, `[...document.querySelectorAll("#deck-list tbody tr")].map(r => [r.querySelector("a").textContent, ...[...r.querySelectorAll("td.num")].map(td => td.textContent.trim())].join("|"))`)
		if !slices.Contains(counts, "Verbs cram|3|0|3|6") || !slices.Contains(counts, "Spanish verbs|0|0|0|0") {
			t.Errorf("the deck list's rows (deck|new|learning|due|cards): %q", counts)
		}
		b.look("decks-filtered")
		// Today agrees: the filtered deck's session serves its 3 review and
		// 3 new cards; the emptied home deck has none.
		b.open("/")
		today := evalJS[[]string](b, `[...document.querySelectorAll(".deck-list li")].map(li => [...li.querySelectorAll(".deck-name, .badge")].map(e => e.textContent.trim()).join("|"))`)
		if !slices.Contains(today, "Verbs cram|filtered|3 due|3 new today") || !slices.Contains(today, "Spanish verbs") {
			t.Errorf("Today's decks (name|badges): %q", today)
		}

		// Studied with rescheduling off: a cram session; no schedule moves.
		b.open("/decks/" + filteredID)
		b.submit("#study-deck")
		if !b.exists("#cram") {
			t.Errorf("the filtered deck's session is not a cram session:\n%s", b.text())
		}
		rated := map[string]bool{}
		for i := 0; i < 20 && b.exists(`input[name="cardId"]`); i++ {
			rated[b.attr(`input[name="cardId"]`, "value")] = true
			b.key(" ", false)
			b.key("4", true)
		}
		if len(rated) != 6 || !strings.Contains(b.text(), "Done for now") {
			t.Errorf("rated %d cards in the filtered deck, want 6, and the session done:\n%s", len(rated), b.text())
		}
		schedulesKept("after studying with rescheduling off", filteredID)

		// A refused rebuild keeps its input; a rebuild gathers again.
		b.open("/decks/" + filteredID)
		b.click("#rebuild-options summary")
		b.fill("#search", "prop:foo>1")
		b.submitUnchecked("#rebuild-filtered")
		b.refusedField("#search", "prop:foo>1", "prop:foo>1")
		if !evalJS[bool](b, `document.querySelector("#rebuild-options").open`) {
			t.Error("the refused rebuild's options are folded away")
		}
		b.fill("#search", `deck:"Spanish verbs" is:review`)
		b.submit("#rebuild-filtered")
		if f := b.textOf(".flash"); f != "Rebuilt: 3 cards gathered." {
			t.Errorf("the flash after rebuilding: %q", f)
		}
		if n := len(cardsInDeck(t, e, ctx, deck.ID)); n != 3 {
			t.Errorf("after rebuilding with is:review, %d cards at home, want the 3 new ones", n)
		}

		// Empty: every card home, schedules as they were.
		b.submit("#empty-filtered")
		if f := b.textOf(".flash"); f != "Emptied: 3 cards went back to their home decks." || !strings.HasPrefix(b.textOf("#filtered-cards"), "0 cards") {
			t.Errorf("after Empty: flash %q, holds %q", f, b.textOf("#filtered-cards"))
		}
		schedulesKept("after emptying", deck.ID)

		// Delete, after a rebuild: the cards go home, the deck to the trash.
		b.submit("#rebuild-filtered")
		b.submit("#delete-filtered")
		if !strings.Contains(b.textOf("#delete-filtered-note"), "3 cards go back to their home decks") {
			t.Errorf("the delete page of a filtered deck: %q", b.text())
		}
		b.submit(`form[action$="/delete"] button`)
		if b.location() != "/decks?flash=deleted" {
			t.Errorf("deleting led to %s", b.location())
		}
		schedulesKept("after deleting the filtered deck", deck.ID)
		b.checkClean("custom study")
	})
}

// TestCustomStudyRefusals: the custom study handlers answer a refused
// form with a 4xx and the reason on the page, never a stack or SQL: a bad
// search word 400 naming it, a taken name 409, a limit out of range or
// not a number 400, an unknown order 400; rebuilding or emptying a plain
// deck or another person's filtered deck 404; without the CSRF token 403
// and nothing built.
func TestCustomStudyRefusals(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		deck := seedDeck(t, e, "Geography", 3)
		cookies, csrf := e.signIn(t, testUser)
		origin := http.Header{"Origin": {e.base}}
		post := func(path string, form url.Values) (int, string) {
			t.Helper()
			form.Set("csrf_token", csrf)
			resp, body := e.postForm(t, path, form, origin, cookies...)
			return resp.StatusCode, string(body)
		}
		form := func(kv ...string) url.Values {
			v := url.Values{"name": {"Geo cram"}, "search": {"deck:Geography"}, "limit": {"10"}, "order": {"due"}}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		custom := "/decks/" + deck.ID + "/custom"
		for _, c := range []struct {
			name   string
			form   url.Values
			status int
			says   string
		}{
			{"bad is: word", form("search", "deck:Geography is:sleeping"), http.StatusBadRequest, "search word is:sleeping"},
			{"unknown deck", form("search", `deck:"Nowhere land"`), http.StatusBadRequest, "no deck is named &#34;Nowhere land&#34;"},
			{"taken name", form("name", "Geography"), http.StatusConflict, "already exists"},
			{"limit 0", form("limit", "0"), http.StatusBadRequest, "limit must be 1-1000"},
			{"limit 1001", form("limit", "1001"), http.StatusBadRequest, "limit must be 1-1000"},
			{"limit abc", form("limit", "abc"), http.StatusBadRequest, "limit must be a whole number"},
			{"order", form("order", "sideways"), http.StatusBadRequest, "order must be one of"},
		} {
			status, body := post(custom, c.form)
			if status != c.status || !strings.Contains(body, c.says) || !strings.Contains(body, `class="field-error"`) {
				t.Errorf("%s: %d, want %d with %q beside the field:\n%.2000s", c.name, status, c.status, c.says, body)
			}
			if strings.Contains(body, "SQL") || strings.Contains(body, "goroutine") {
				t.Errorf("%s: the page shows internals:\n%s", c.name, body)
			}
		}
		svc := e.app.Services()
		ctx := e.asUser(t)
		if list, err := svc.Filtered.FilteredDecks(ctx); err != nil || len(list) != 0 {
			t.Fatalf("after the refusals: %d filtered decks (%v), want none", len(list), err)
		}

		// Without the CSRF token nothing is built.
		resp, _ := e.postForm(t, custom, form(), origin, cookies...)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("without the CSRF token: %d, want 403", resp.StatusCode)
		}
		status, body := post(custom, form())
		if status != http.StatusSeeOther {
			t.Fatalf("a good form: %d\n%s", status, body)
		}
		list, err := svc.Filtered.FilteredDecks(ctx)
		if err != nil || len(list) != 1 || list[0].Cards != 3 {
			t.Fatalf("after building: %+v, %v; want one deck with 3 cards", list, err)
		}
		geo := list[0].DeckID

		// Rebuilding with a bad search changes nothing.
		status, body = post("/decks/"+geo+"/rebuild", form("search", "prop:ivl>x"))
		if status != http.StatusBadRequest || !strings.Contains(body, "search word prop:ivl&gt;x") {
			t.Errorf("a bad rebuild: %d\n%.2000s", status, body)
		}
		if f, err := svc.Filtered.Filtered(ctx, geo); err != nil || f.Cards != 3 || f.Search != "deck:Geography" {
			t.Errorf("after the refused rebuild: %+v, %v; want the deck as it was", f, err)
		}
		// A plain deck is not filtered; another person's filtered deck is
		// not found.
		for _, path := range []string{"/decks/" + deck.ID + "/empty", "/decks/" + deck.ID + "/rebuild"} {
			if status, body := post(path, url.Values{}); status != http.StatusNotFound || !strings.Contains(body, "not a filtered deck") {
				t.Errorf("%s of a plain deck: %d\n%.1500s", path, status, body)
			}
		}
		if _, _, err := e.app.EnsureUser(context.Background(), "eve@example.com", "Eve"); err != nil {
			t.Fatal(err)
		}
		// Every quick choice's search builds (an empty deck is no refusal).
		field := regexp.MustCompile(`id="(search|order|limit)" name="[a-z]+"[^>]*?value="([^"]*)"|<option value="([a-z]+)" selected`)
		for _, preset := range []string{"ahead", "forgotten", "today", "preview", "cram"} {
			resp, page := e.request(t, http.MethodGet, custom+"?preset="+preset, nil, nil, cookies...)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the %s quick choice: %d", preset, resp.StatusCode)
			}
			f := url.Values{"name": {"Quick " + preset}}
			for _, m := range field.FindAllStringSubmatch(string(page), -1) {
				if m[3] != "" {
					f.Set("order", m[3])
				} else {
					f.Set(m[1], html.UnescapeString(m[2]))
				}
			}
			if !strings.HasPrefix(f.Get("search"), "deck:Geography") || f.Get("order") == "" || f.Get("limit") == "" {
				t.Fatalf("the %s quick choice's form: %v", preset, f)
			}
			if status, body := post(custom, f); status != http.StatusSeeOther {
				t.Errorf("building the %s quick choice %v: %d\n%.1500s", preset, f, status, body)
			}
		}
		eve, eveCSRF := e.signIn(t, "eve@example.com")
		resp, _ = e.postForm(t, "/decks/"+geo+"/empty", url.Values{"csrf_token": {eveCSRF}}, origin, eve...)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("another person's Empty: %d, want 404", resp.StatusCode)
		}
		if f, _ := svc.Filtered.Filtered(ctx, geo); f.Cards != 3 {
			t.Errorf("another person emptied the deck: %+v", f)
		}
	})
}
