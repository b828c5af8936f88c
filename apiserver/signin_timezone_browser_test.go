package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserSignInAdoptsTimezone: a browser in Tokyo signs in to an
// account that never chose a timezone, and the account takes Tokyo's (the
// confirmation form's script reports it); a later sign-in from another
// zone changes nothing, and a form without it (no JavaScript) or with a
// bogus one signs in all the same.
func TestBrowserSignInAdoptsTimezone(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	uid := userID(t, e)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: uid, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	settings := func() contracts.AccountSettings {
		t.Helper()
		s, err := e.app.Services().Settings.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if tz := settings().Timezone; tz != "UTC" {
		t.Fatalf("a new account's timezone is %q, want UTC", tz)
	}

	// Without JavaScript's field, or with a bogus zone: signed in, still UTC.
	for _, tz := range []string{"", "Mars/Olympus_Mons"} {
		link, _, err := e.app.LoginLink(context.Background(), testUser)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(link)
		resp, _ := e.request(t, http.MethodPost, "/login", url.Values{"token": {u.Query().Get("token")}, "timezone": {tz}}.Encode(),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {e.base}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in with timezone %q: %d", tz, resp.StatusCode)
		}
		if got := settings().Timezone; got != "UTC" {
			t.Fatalf("after a sign-in with timezone %q the account has %q, want UTC", tz, got)
		}
	}

	b := newBrowser(t, e)
	b.timezone("Asia/Tokyo")
	b.signIn(testUser)
	if got := settings().Timezone; got != "Asia/Tokyo" {
		t.Fatalf("after signing in from Tokyo the account has %q, want Asia/Tokyo", got)
	}
	b.timezone("Europe/Paris")
	if _, err := chromedp.Call(b.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.signIn(testUser)
	if got := settings().Timezone; got != "Asia/Tokyo" {
		t.Errorf("a second sign-in from Paris changed the timezone to %q; a chosen one stays", got)
	}
	b.open("/settings/day")
	b.look("day-after-signin")
}

// timezone makes the browser report an IANA timezone.
func (b *browser) timezone(tz string) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: tz}); err != nil {
		b.t.Fatalf("emulating timezone %s: %v", tz, err)
	}
}
