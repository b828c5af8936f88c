package apiserver_test

import (
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

// Others asking for someone's sign-in link never lock its owner out (issue
// 30, item 6: five POST /signin for an address, from anywhere, blocked its
// owner's email sign-in for 15 minutes). Requests for an address are
// limited per client network; the mail to the address has a cap of its own
// that only slows it; a link already sent keeps working.
func TestSignInLockOut(t *testing.T) {
	e, srv := mailEnv(t, func(c *apiserver.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	send := func(from, email string) int {
		t.Helper()
		h := form(e.base)
		h.Set("X-Forwarded-For", from)
		resp, page := e.request(t, http.MethodPost, "/signin", url.Values{"email": {email}}.Encode(), h)
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(page), "Check your email") {
			t.Fatalf("POST /signin from %s: 200 without \"Check your email\"", from)
		}
		return resp.StatusCode
	}
	// The owner asks once: the link is mailed.
	if c := send("198.51.100.9", testUser); c != http.StatusOK {
		t.Fatalf("the owner's request: %d", c)
	}
	first := waitLink(t, srv, 1, testUser)

	// Someone asks for the owner's address from one network, then hops
	// addresses inside an IPv6 /64: that network is refused after five.
	for i := range web.SignInPerEmail {
		if c := send("203.0.113.7", testUser); c != http.StatusOK {
			t.Fatalf("attacker request %d: %d", i+1, c)
		}
	}
	if c := send("203.0.113.7", testUser); c != http.StatusTooManyRequests {
		t.Errorf("a 6th request from one address: %d, want 429", c)
	}
	for i := range web.SignInPerEmail {
		send(fmt.Sprintf("2001:db8:7:7::%x", i+1), testUser)
	}
	if c := send("2001:db8:7:7::99", testUser); c != http.StatusTooManyRequests {
		t.Errorf("a 6th request from one /64: %d, want 429", c)
	}
	// Many networks: each is answered, none locks the owner out.
	for i := range 12 {
		send(fmt.Sprintf("192.0.2.%d", i+1), testUser)
	}
	if c := send("198.51.100.9", testUser); c != http.StatusOK {
		t.Fatalf("the owner after %d requests by others: %d, want 200", 1+2*web.SignInPerEmail+12, c)
	}
	// The mail is capped: the first SignInMailsPerEmail went out, then one
	// per SignInSlowMail.
	mails := func() int {
		time.Sleep(300 * time.Millisecond) // the mail goes out in the background
		return len(srv.Messages())
	}
	if n := mails(); n != web.SignInMailsPerEmail+1 {
		t.Errorf("%d mails to the owner in one burst, want %d (the cap, then one slowed)", n, web.SignInMailsPerEmail+1)
	}
	e.clock.Advance(web.SignInSlowMail)
	send("192.0.2.200", testUser)
	send("192.0.2.201", testUser)
	if n := mails(); n != web.SignInMailsPerEmail+2 {
		t.Errorf("%d mails a minute later, want one more (%d)", n, web.SignInMailsPerEmail+2)
	}
	// The owner's first link, mailed before all that, still signs in.
	resp, _ := e.request(t, http.MethodPost, "/login", url.Values{"token": {first.Query().Get("token")}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) == 0 {
		t.Errorf("the owner's first link after the flood: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}
