package apiserver_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// The study page says what the last rating did from the session's own
// state; text in the query (?rated=…&ivl=…, a link someone else crafted)
// never reaches the page (issue 30, item 12: both were echoed, escaped).
func TestStudyPageEchoesNoQueryText(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Echo"}, &deck)
	call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "one", "back": "1"}, {"front": "two", "back": "2"}}}, nil)
	var sess contracts.StudySession
	call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
	cookies, csrf := e.signIn(t, testUser)
	crafted := "/study/" + sess.ID + "?" + url.Values{"rated": {"Session expired, call 555-0100"}, "ivl": {"forever at evil.example"}}.Encode()
	for _, when := range []string{"before any rating", "after a rating"} {
		resp, page := e.request(t, http.MethodGet, crafted, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: GET the crafted link: %d", when, resp.StatusCode)
		}
		for _, s := range []string{"555-0100", "evil.example", "Session expired"} {
			if strings.Contains(string(page), s) {
				t.Errorf("%s: the study page echoes %q from the query", when, s)
			}
		}
		if when == "after a rating" {
			break
		}
		vals := url.Values{"csrf_token": {csrf}, "cardId": {sess.Current.CardID}, "position": {strconv.Itoa(sess.Current.Position)}, "rating": {"good"}}
		resp, _ = e.request(t, http.MethodPost, "/study/"+sess.ID+"/review", vals.Encode(), form(e.base), cookies...)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("rating through the page: %d", resp.StatusCode)
		}
		loc := resp.Header.Get("Location")
		_, page = e.request(t, http.MethodGet, loc, nil, nil, cookies...)
		studied, err := e.app.Services().Study.Studied(e.asUser(t), sess.ID)
		if err != nil || len(studied) != 1 {
			t.Fatalf("studied %v %v", studied, err)
		}
		if want := "last: good: next in " + studied[0].IntervalHuman; !strings.Contains(string(page), want) {
			t.Errorf("after rating Good (redirected to %s) the page does not say %q", loc, want)
		}
	}
}
