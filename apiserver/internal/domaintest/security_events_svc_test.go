package domain_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestSecurityEvents: sign-in, key minted and revoked, an app approved and
// disconnected, exposure changed, the account exported and a rating undone
// each leave one audit row for the acting person, carrying the credential
// that acted and never a secret; a refused action leaves none.
func TestSecurityEvents(t *testing.T) { eachStore(t, testSecurityEvents) }

func testSecurityEvents(t *testing.T, store string) {
	e := newEnv(t, store)
	bg := context.Background()
	ada := e.user("ada@example.com")

	token, _, err := e.svc.WebSessions.CreateLoginLink(bg, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	session, user, err := e.svc.WebSessions.ConsumeLoginLink(bg, token)
	if err != nil {
		t.Fatal(err)
	}
	web, err := e.svc.WebSessions.Authenticate(bg, session)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.WebSessions.ConsumeLoginLink(bg, token); err == nil {
		t.Fatal("a spent link signed in again")
	}
	e.clock.Advance(time.Second)
	key, err := e.svc.Keys.CreateKey(ada, "laptop", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	if err := e.svc.Keys.RevokeKey(ada, key.Key.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, e.svc.Keys.RevokeKey(ada, "nope"), contracts.KindNotFound)
	e.clock.Advance(time.Second)
	if _, err := e.svc.Exposure.SetExposure(ada, contracts.ExposureSettings{ReadOnly: true, DisabledTools: []string{contracts.ToolDeleteDeck}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Exposure.SetExposure(as(user.ID, contracts.CredentialAPIKey), contracts.ExposureSettings{})
	wantKind(t, err, contracts.KindForbidden)
	e.clock.Advance(time.Second)
	o := oauthEnv(e)
	clientID, code := codeFor(t, o, ada)
	if _, err := o.Token(bg, contracts.OAuthTokenRequest{GrantType: "authorization_code", ClientID: clientID, Code: code,
		RedirectURI: "https://app.example/cb", CodeVerifier: verifier}); err != nil {
		t.Fatal(err)
	}
	grants, err := o.ListGrants(ada)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %+v, %v", grants, err)
	}
	e.clock.Advance(time.Second)
	if err := o.RevokeGrant(ada, grants[0].ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, o.RevokeGrant(e.user("eve@example.com"), grants[0].ID), contracts.KindNotFound)
	e.clock.Advance(time.Second)
	if err := e.svc.AccountData.Export(ada, io.Discard); err != nil {
		t.Fatal(err)
	}

	page, err := e.svc.Audit.List(ada, contracts.AuditFilter{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]contracts.AuditEvent{}
	var order []string
	for _, ev := range page.Items {
		if _, dup := got[ev.Tool]; dup {
			t.Errorf("two %s events: %+v", ev.Tool, page.Items)
		}
		got[ev.Tool] = ev
		order = append(order, ev.Tool)
		if strings.Contains(string(ev.InputSummary), key.Secret) || strings.Contains(string(ev.InputSummary), session) ||
			strings.Contains(string(ev.InputSummary), token) {
			t.Errorf("%s carries a secret: %s", ev.Tool, ev.InputSummary)
		}
		if ev.UserID != user.ID || ev.Outcome != contracts.AuditOK {
			t.Errorf("%s: %+v", ev.Tool, ev)
		}
	}
	want := []string{contracts.AuditExportAccount, contracts.AuditRevokeGrant, contracts.AuditApproveGrant, contracts.AuditSetExposure,
		contracts.AuditRevokeKey, contracts.AuditCreateKey, contracts.AuditSignIn}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("events newest first %v, want %v", order, want)
	}
	if si := got[contracts.AuditSignIn]; si.CredentialKind != contracts.CredentialSession || si.CredentialID != web.CredentialID {
		t.Errorf("sign-in recorded with %s %s, want the session it opened (%s)", si.CredentialKind, si.CredentialID, web.CredentialID)
	}
	ck := got[contracts.AuditCreateKey]
	if ck.CredentialKind != contracts.CredentialSession || len(ck.AffectedIDs) != 1 || ck.AffectedIDs[0] != key.Key.ID ||
		!strings.Contains(string(ck.InputSummary), `"laptop"`) || !strings.Contains(string(ck.InputSummary), `"decks:read"`) {
		t.Errorf("create_key event %+v (%s)", ck, ck.InputSummary)
	}
	if ex := got[contracts.AuditSetExposure]; !strings.Contains(string(ex.InputSummary), contracts.ToolDeleteDeck) || ex.Action != "exposure.set" {
		t.Errorf("set_exposure event %+v (%s)", ex, ex.InputSummary)
	}
	if ag := got[contracts.AuditApproveGrant]; !strings.Contains(string(ag.InputSummary), `"App"`) {
		t.Errorf("approve_grant event %s", ag.InputSummary)
	}
	if rg := got[contracts.AuditRevokeGrant]; len(rg.AffectedIDs) != 1 || rg.AffectedIDs[0] != grants[0].ID {
		t.Errorf("revoke_grant event %+v, want grant %s", rg, grants[0].ID)
	}
	// Another person sees none of them.
	other, err := e.svc.Audit.List(e.user("bob@example.com"), contracts.AuditFilter{}, "", 50)
	if err != nil || len(other.Items) != 0 {
		t.Errorf("bob sees %+v, %v", other.Items, err)
	}
}
