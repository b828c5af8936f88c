package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
)

// Open sign-up creates the account when the link is used, and sign-up
// links are limited per client network (an IPv6 /64): beyond the limit
// the form answers as always and neither mails a link nor creates
// anything (issue 30, item 10: each request made an account at once, and
// only the per-address and per-client limits bounded it).
func TestOpenSignupOnUse(t *testing.T) {
	e, srv := mailEnv(t, func(c *apiserver.Config) {
		c.OpenSignup = true
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	accounts := e.app.Services().Accounts
	exists := func(email string) bool {
		_, err := accounts.UserByEmail(t.Context(), email)
		return err == nil
	}
	send := func(from, email string) {
		t.Helper()
		h := form(e.base)
		h.Set("X-Forwarded-For", from)
		resp, page := e.request(t, http.MethodPost, "/signin", url.Values{"email": {email}}.Encode(), h)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Check your email") {
			t.Fatalf("POST /signin for %s from %s: %d", email, from, resp.StatusCode)
		}
	}
	send("2001:db8:5:5::1", "first@example.com")
	link := waitLink(t, srv, 1, "first@example.com")
	if exists("first@example.com") {
		t.Fatal("asking for a sign-up link created the account")
	}
	resp, page := e.request(t, http.MethodGet, link.RequestURI(), nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "first@example.com") {
		t.Fatalf("the sign-up link's page: %d", resp.StatusCode)
	}
	resp, _ = e.request(t, http.MethodPost, "/login", url.Values{"token": {link.Query().Get("token")}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) == 0 || !exists("first@example.com") {
		t.Fatalf("using the sign-up link: %d, cookies %v, account exists %v", resp.StatusCode, resp.Cookies(), exists("first@example.com"))
	}

	// The same /64, other addresses: SignUpsPerNetwork links an hour; then
	// another /64, and a known account from the first one.
	for i := 2; i <= web.SignUpsPerNetwork; i++ {
		send(fmt.Sprintf("2001:db8:5:5::%x", i), fmt.Sprintf("new%d@example.com", i))
	}
	send("2001:db8:5:5:ffff::9", "over@example.com")
	send("2001:db8:6:6::1", "elsewhere@example.com")
	send("2001:db8:5:5::77", "first@example.com")
	want := web.SignUpsPerNetwork + 2
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := srv.Wait(ctx, want); err != nil {
		t.Fatalf("waiting for %d mails: %v", want, err)
	}
	time.Sleep(200 * time.Millisecond)
	to := map[string]int{}
	for _, m := range srv.Messages() {
		to[m.To[0]]++
	}
	if len(srv.Messages()) != want || to["over@example.com"] != 0 || to["elsewhere@example.com"] != 1 || to["first@example.com"] != 2 {
		t.Errorf("mails went to %v; want none past the network's limit, one to the other /64, the known account's", to)
	}
	for _, email := range []string{"over@example.com", "new2@example.com", "elsewhere@example.com"} {
		if exists(email) {
			t.Errorf("%s has an account without using a link", email)
		}
	}
}
