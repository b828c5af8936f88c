package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestWebMutationsAudited: what a person changes in the web app lands in
// the audit trail like an agent's change, under the same tool names, with
// the web session as the credential; the sign-in that opened the session
// is there too, and the audit page shows both.
func TestWebMutationsAudited(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	origin := http.Header{"Origin": {e.base}}
	post := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf_token", csrf)
		resp, body := e.postForm(t, path, form, origin, cookies...)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", path, resp.StatusCode, body)
		}
		return resp.Header.Get("Location")
	}
	loc := post("/decks", url.Values{"name": {"Audited"}})
	deckID := strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/decks/")
	post("/decks/"+deckID+"/cards", url.Values{"front": {"Q"}, "back": {"A"}})
	post("/decks/"+deckID+"/settings", url.Values{"name": {"Audited 2"}, "description": {""}})
	studyLoc := post("/decks/"+deckID+"/study", url.Values{})
	sessionID := strings.TrimPrefix(studyLoc, "/study/")

	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	sess, err := svc.Study.GetSession(ctx, sessionID)
	if err != nil || sess.Current == nil {
		t.Fatalf("session %+v, %v", sess, err)
	}
	post("/study/"+sessionID+"/review", url.Values{"cardId": {sess.Current.CardID}, "position": {"0"}, "rating": {"good"}})
	post("/study/"+sessionID+"/undo", url.Values{})

	page, err := svc.Audit.List(ctx, contracts.AuditFilter{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, ev := range page.Items {
		tools = append(tools, ev.Tool)
		if ev.CredentialKind != contracts.CredentialSession || ev.CredentialID == "" || ev.Outcome != contracts.AuditOK {
			t.Errorf("%s recorded with credential %s %q, outcome %s; want the web session", ev.Tool, ev.CredentialKind, ev.CredentialID, ev.Outcome)
		}
		if ev.Tool == contracts.ToolSubmitReview && (len(ev.AffectedIDs) != 2 || ev.AffectedIDs[0] != sessionID || ev.RequestID == "") {
			t.Errorf("submit_review from the page: %+v", ev)
		}
	}
	want := []string{contracts.AuditUndoReview, contracts.ToolSubmitReview, contracts.ToolStartStudySession, contracts.ToolUpdateDeck,
		contracts.ToolAddCards, contracts.ToolCreateDeck, contracts.AuditSignIn}
	if strings.Join(tools, " ") != strings.Join(want, " ") {
		t.Errorf("audit trail newest first %v, want %v", tools, want)
	}

	resp, body := e.request(t, http.MethodGet, "/audit?tool="+contracts.AuditSignIn, nil, nil, cookies...)
	if resp.StatusCode != http.StatusOK || strings.Count(string(body), `class="panel audit-row"`) != 1 ||
		!strings.Contains(string(body), "Signed in <code>sign_in</code>") || !strings.Contains(string(body), ">security<") {
		t.Errorf("the audit page filtered to sign-ins: %d\n%s", resp.StatusCode, body)
	}
}
