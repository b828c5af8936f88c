package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Open sign-up creates the account when its link is used, not when it is
// asked for (issue 30, item 10: every request for an unknown address made
// an account): asking leaves no account, the link's confirmation names the
// email, spending it creates the account and opens a session, once; an
// expired link creates nothing; without sign-up (or when the caller's
// sign-up limit says no) an unknown address is not found and no link is
// made.
func TestOpenSignupCreatesTheAccountOnUse(t *testing.T) {
	eachStore(t, testOpenSignupCreatesTheAccountOnUse)
}

func testOpenSignupCreatesTheAccountOnUse(t *testing.T, store string) {
	e := newEnv(t, store)
	bg := context.Background()
	ws := e.svc.WebSessions
	yes := func() bool { return true }
	asked := 0
	no := func() bool { asked++; return false }

	token, exp, err := ws.SignInLink(bg, "New.Person@Example.com", yes)
	if err != nil || token == "" || !exp.After(e.clock.Now()) {
		t.Fatalf("SignInLink with sign-up = %q %v %v", token, exp, err)
	}
	_, err = e.svc.Accounts.UserByEmail(bg, "new.person@example.com")
	wantKind(t, err, contracts.KindNotFound)
	peek, err := ws.PeekLoginLink(bg, token)
	if err != nil || peek.Email != "new.person@example.com" || peek.ID != "" {
		t.Fatalf("PeekLoginLink of a sign-up link = %+v, %v", peek, err)
	}
	session, u, err := ws.ConsumeLoginLink(bg, token)
	if err != nil || session == "" || u.ID == "" || u.Email != "new.person@example.com" {
		t.Fatalf("ConsumeLoginLink of a sign-up link = %q %+v %v", session, u, err)
	}
	if got, err := e.svc.Accounts.UserByEmail(bg, "new.person@example.com"); err != nil || got.ID != u.ID {
		t.Errorf("after the link: account %+v, %v", got, err)
	}
	if p, err := ws.Authenticate(bg, session); err != nil || p.UserID != u.ID {
		t.Errorf("the sign-up's session: %+v, %v", p, err)
	}
	_, _, err = ws.ConsumeLoginLink(bg, token)
	wantKind(t, err, contracts.KindUnauthenticated)
	// Now the account exists: a sign-in link, the limit not asked.
	if _, _, err := ws.SignInLink(bg, "new.person@example.com", no); err != nil || asked != 0 {
		t.Errorf("SignInLink of the new account: %v, sign-up asked %d times", err, asked)
	}

	late, _, err := ws.SignInLink(bg, "late@example.com", yes)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(16 * time.Minute)
	_, err = ws.PeekLoginLink(bg, late)
	wantKind(t, err, contracts.KindUnauthenticated)
	_, _, err = ws.ConsumeLoginLink(bg, late)
	wantKind(t, err, contracts.KindUnauthenticated)
	_, err = e.svc.Accounts.UserByEmail(bg, "late@example.com")
	wantKind(t, err, contracts.KindNotFound)

	for _, signup := range []func() bool{nil, no} {
		_, _, err := ws.SignInLink(bg, "someone@example.com", signup)
		wantKind(t, err, contracts.KindNotFound)
	}
	if asked != 1 {
		t.Errorf("the sign-up limit was asked %d times, want once (only for the unknown address)", asked)
	}
	_, err = e.svc.Accounts.UserByEmail(bg, "someone@example.com")
	wantKind(t, err, contracts.KindNotFound)
	_, _, err = ws.SignInLink(bg, "not-an-email", yes)
	wantKind(t, err, contracts.KindInvalid)
}
