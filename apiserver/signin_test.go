package apiserver_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/mail/smtptest"
	"github.com/takhtabush/takhtabush/apiserver"
)

// mailEnv is a service whose sign-in links go through a test SMTP server.
func mailEnv(t *testing.T, mod func(*apiserver.Config)) (*env, *smtptest.Server) {
	t.Helper()
	srv, err := smtptest.Start("", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) {
		c.SMTP = apiserver.SMTPConfig{Host: srv.Host, Port: srv.Port, From: "Takhtabush <login@t.example>", TLS: "none"}
		if mod != nil {
			mod(c)
		}
	})
	return e, srv
}

var linkInMail = regexp.MustCompile(`https?://[^\s"<>]+/login\?token=[A-Za-z0-9_%-]+(&next=[^\s"<>&]+)?`)

// waitLink waits for the n-th message and returns the sign-in link in it.
func waitLink(t *testing.T, srv *smtptest.Server, n int, to string) *url.URL {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msgs, err := srv.Wait(ctx, n)
	if err != nil {
		t.Fatalf("waiting for mail %d: %v", n, err)
	}
	m := msgs[n-1]
	if len(m.To) != 1 || m.To[0] != to {
		t.Fatalf("mail to %v, want %s", m.To, to)
	}
	link := linkInMail.FindString(m.Text())
	u, err := url.Parse(link)
	if link == "" || err != nil {
		t.Fatalf("no sign-in link in the mail:\n%s", m.Text())
	}
	return u
}

func form(origin string) http.Header {
	return http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {origin}}
}

// The whole sign-in by mail: the form sends a link; opening it (GET, HEAD,
// twice) spends nothing; the button signs in once and comes back to next.
func TestSignInByMail(t *testing.T) {
	e, srv := mailEnv(t, nil)
	resp, page := e.request(t, http.MethodGet, "/signin?next=/decks", nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `name="email"`) || !strings.Contains(string(page), `value="/decks"`) {
		t.Fatalf("GET /signin: %d\n%s", resp.StatusCode, page)
	}
	resp, page = e.request(t, http.MethodPost, "/signin", url.Values{"email": {testUser}, "next": {"/decks"}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Check your email") || strings.Contains(string(page), "token=") {
		t.Fatalf("POST /signin: %d\n%s", resp.StatusCode, page)
	}
	link := waitLink(t, srv, 1, testUser)
	if link.Query().Get("next") != "/decks" || !strings.HasPrefix(link.String(), e.base+"/login?") {
		t.Errorf("link %s, want %s/login?…&next=/decks", link, e.base)
	}
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodGet} {
		resp, page := e.request(t, method, link.RequestURI(), nil, nil)
		if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 {
			t.Fatalf("%s link: %d cookies %v", method, resp.StatusCode, resp.Cookies())
		}
		if method == http.MethodGet && (!strings.Contains(string(page), "Sign in as "+testUser) || !strings.Contains(string(page), `action="/login"`)) {
			t.Fatalf("confirmation page:\n%s", page)
		}
		if ref := resp.Header.Get("Referrer-Policy"); ref != "same-origin" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("confirmation page headers: Referrer-Policy %q Cache-Control %q", ref, resp.Header.Get("Cache-Control"))
		}
	}
	button := url.Values{"token": {link.Query().Get("token")}, "next": {link.Query().Get("next")}}.Encode()
	if resp, _ := e.request(t, http.MethodPost, "/login", button, form("https://evil.example")); resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("cross-origin button: %d, want 403", resp.StatusCode)
	}
	resp, _ = e.request(t, http.MethodPost, "/login", button, form(e.base))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/decks" || len(resp.Cookies()) != 2 {
		t.Fatalf("button: %d Location %q cookies %v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	session := resp.Cookies()
	if resp, body := e.request(t, http.MethodGet, "/api/me", nil, nil, session...); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), testUser) {
		t.Errorf("the new session: %d %s", resp.StatusCode, body)
	}
	if resp, _ := e.request(t, http.MethodPost, "/login", button, form(e.base)); resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Errorf("the link worked twice: %d", resp.StatusCode)
	}
	if resp, _ := e.request(t, http.MethodGet, link.RequestURI(), nil, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a used link still shows the button: %d", resp.StatusCode)
	}
	// Signed in, the form sends you on.
	if resp, _ := e.request(t, http.MethodGet, "/signin?next=/decks", nil, nil, session...); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/decks" {
		t.Errorf("GET /signin signed in: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if strings.Contains(e.logs.String(), link.Query().Get("token")) {
		t.Errorf("the logs carry the sign-in token")
	}
}

// A link expires after 15 minutes, and a foreign next is dropped.
func TestSignInLinkExpiresAndNextStaysHome(t *testing.T) {
	e, srv := mailEnv(t, nil)
	e.request(t, http.MethodPost, "/signin", url.Values{"email": {testUser}, "next": {"//evil.example/x"}}.Encode(), form(e.base))
	link := waitLink(t, srv, 1, testUser)
	if link.Query().Has("next") {
		t.Errorf("a foreign next reached the link: %s", link)
	}
	e.clock.Advance(16 * time.Minute)
	resp, _ := e.request(t, http.MethodPost, "/login", url.Values{"token": {link.Query().Get("token")}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Errorf("an expired link: %d", resp.StatusCode)
	}
	// next given to the button directly is checked too.
	e.clock.Advance(-16 * time.Minute)
	e.request(t, http.MethodPost, "/signin", url.Values{"email": {testUser}}.Encode(), form(e.base))
	link = waitLink(t, srv, 2, testUser)
	resp, _ = e.request(t, http.MethodPost, "/login", url.Values{"token": {link.Query().Get("token")}, "next": {"https://evil.example/"}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("foreign next on the button: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// An unknown address gets the very same answer and no mail; with open
// sign-up it gets an account and a link.
func TestSignInUnknownEmail(t *testing.T) {
	e, srv := mailEnv(t, nil)
	answer := func(email string) (int, string) {
		resp, page := e.request(t, http.MethodPost, "/signin", url.Values{"email": {email}}.Encode(), form(e.base))
		return resp.StatusCode, strings.ReplaceAll(string(page), email, "EMAIL")
	}
	knownCode, known := answer(testUser)
	unknownCode, unknown := answer("nobody@example.com")
	if knownCode != http.StatusOK || knownCode != unknownCode || known != unknown {
		t.Errorf("known %d and unknown %d answers differ:\n%s\n---\n%s", knownCode, unknownCode, known, unknown)
	}
	waitLink(t, srv, 1, testUser)
	time.Sleep(200 * time.Millisecond)
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("%d messages, want only the known address's", n)
	}
	if _, err := e.app.Services().Accounts.UserByEmail(context.Background(), "nobody@example.com"); err == nil {
		t.Errorf("an account was created without open sign-up")
	}

	open, srv2 := mailEnv(t, func(c *apiserver.Config) { c.OpenSignup = true })
	open.request(t, http.MethodPost, "/signin", url.Values{"email": {"New.Person@Example.com"}}.Encode(), form(open.base))
	link := waitLink(t, srv2, 1, "new.person@example.com")
	resp, page := open.request(t, http.MethodGet, link.RequestURI(), nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "new.person@example.com") {
		t.Errorf("open sign-up link: %d", resp.StatusCode)
	}
}

// Sign-in requests are limited per address and per client.
func TestSignInRateLimits(t *testing.T) {
	e, _ := mailEnv(t, nil)
	send := func(email string) int {
		resp, _ := e.request(t, http.MethodPost, "/signin", url.Values{"email": {email}}.Encode(), form(e.base))
		return resp.StatusCode
	}
	for i := range 5 {
		if c := send("someone@example.com"); c != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, c)
		}
	}
	if c := send("SomeOne@example.com"); c != http.StatusTooManyRequests {
		t.Errorf("6th request for one address: %d, want 429", c)
	}
	for i := 6; i < 20; i++ {
		send("x" + string(rune('a'+i)) + "@example.com")
	}
	if c := send("fresh@example.com"); c != http.StatusTooManyRequests {
		t.Errorf("21st request from one client: %d, want 429", c)
	}
	e.clock.Advance(16 * time.Minute)
	if c := send("fresh@example.com"); c != http.StatusOK {
		t.Errorf("after the window: %d, want 200", c)
	}
}

// Without SMTP outside development, the form says email sign-in is not
// set up and no link reaches a page or a log; in development on loopback
// the link is logged and shown.
func TestSignInWithoutMailServer(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	resp, page := e.request(t, http.MethodGet, "/signin", nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Email sign-in is not set up") || strings.Contains(string(page), `name="email"`) {
		t.Errorf("GET /signin without SMTP: %d\n%s", resp.StatusCode, page)
	}
	resp, page = e.request(t, http.MethodPost, "/signin", url.Values{"email": {testUser}}.Encode(), form(e.base))
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(string(page), "token=") {
		t.Errorf("POST /signin without SMTP: %d", resp.StatusCode)
	}
	if strings.Contains(e.logs.String(), "token=") {
		t.Errorf("a sign-in link reached the log")
	}

	dev := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.Environment = apiserver.EnvDevelopment })
	resp, page = dev.request(t, http.MethodPost, "/signin", url.Values{"email": {testUser}}.Encode(), form(dev.base))
	link := linkInMail.FindString(strings.ReplaceAll(string(page), "&amp;", "&"))
	if resp.StatusCode != http.StatusOK || link == "" {
		t.Fatalf("development sign-in: %d, no link on the page\n%s", resp.StatusCode, page)
	}
	link = strings.TrimSuffix(link, `"`)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(dev.logs.String(), strings.TrimPrefix(link, dev.base)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(dev.logs.String(), strings.TrimPrefix(link, dev.base)) {
		t.Errorf("the development link is not in the log")
	}
}
