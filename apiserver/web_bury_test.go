package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestWebBuryAndUnbury: the study page buries its card until tomorrow
// and says so; the deck page brings the deck's buried cards back; both
// are audited under the tools' names (issue 27).
func TestWebBuryAndUnbury(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	origin := http.Header{"Origin": {e.base}}
	getPage := func(path string) string {
		t.Helper()
		resp, body := e.request(t, http.MethodGet, path, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	post := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf_token", csrf)
		resp, body := e.postForm(t, path, form, origin, cookies...)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", path, resp.StatusCode, body)
		}
		return resp.Header.Get("Location")
	}
	loc := post("/decks", url.Values{"name": {"Buried"}})
	deckID := strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/decks/")
	post("/decks/"+deckID+"/cards", url.Values{"front": {"Q1"}, "back": {"A"}})
	post("/decks/"+deckID+"/cards", url.Values{"front": {"Q2"}, "back": {"A"}})
	sessionID := strings.TrimPrefix(post("/decks/"+deckID+"/study", url.Values{}), "/study/")

	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	sess, err := svc.Study.GetSession(ctx, sessionID)
	if err != nil || sess.Current == nil {
		t.Fatalf("session %+v, %v", sess, err)
	}
	page := getPage("/study/" + sessionID)
	if !strings.Contains(page, `action="/study/`+sessionID+`/bury"`) {
		t.Fatalf("the study page has no bury button:\n%s", page)
	}
	first := sess.Current.CardID
	loc = post("/study/"+sessionID+"/bury", url.Values{"cardId": {first}})
	if page := getPage(loc); !strings.Contains(page, "Card buried: it comes back tomorrow.") {
		t.Errorf("after burying, the page says:\n%s", page)
	}
	if s, _ := svc.Study.GetSession(ctx, sessionID); s.Current == nil || s.Current.CardID == first {
		t.Errorf("the buried card is still current: %+v", s.Current)
	}
	if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "buried"}); len(found.Items) != 1 || found.Items[0].ID != first {
		t.Errorf("buried cards %+v", found.Items)
	}
	loc = post("/decks/"+deckID+"/unbury", url.Values{})
	if page := getPage(loc); !strings.Contains(page, "Buried cards are back in today") {
		t.Errorf("after unburying, the deck page says:\n%s", page)
	}
	if found, _ := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "buried"}); len(found.Items) != 0 {
		t.Errorf("still buried after unbury: %+v", found.Items)
	}
	events, err := svc.Audit.List(ctx, contracts.AuditFilter{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ev := range events.Items {
		seen[ev.Tool] = true
	}
	if !seen[contracts.ToolBuryCards] || !seen[contracts.ToolUnbury] {
		t.Errorf("audited tools %v, want bury_cards and unbury", seen)
	}
}
