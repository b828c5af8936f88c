package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
)

// testSite is a Site with no services behind it: enough for public pages
// and for requests without a session cookie.
func testSite(t *testing.T) *Site {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	r, err := NewRenderer(log)
	if err != nil {
		t.Fatal(err)
	}
	a := auth.New(auth.Services{}, auth.Config{BaseURL: "https://t.example", CSRFKey: make([]byte, 32)})
	return NewSite(r, a, nil, nil, log)
}

// Only paths on this origin survive as ?next= targets.
func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "/",
		"/decks":                     "/decks",
		"/decks/1?q=a%20b&state=due": "/decks/1?q=a%20b&state=due",
		"/study/abc":                 "/study/abc",
		"//evil.example/x":           "/",
		"/\\evil.example":            "/",
		"https://evil.example/":      "/",
		"javascript:alert(1)":        "/",
		"decks":                      "/",
		"/a\r\nLocation: x":          "/",
		"/%2F%2Fevil.example":        "/%2F%2Fevil.example",
	} {
		if got := SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SignInURL("/decks/1?x=1"); got != "/signin?next=%2Fdecks%2F1%3Fx%3D1" {
		t.Errorf("SignInURL = %q", got)
	}
}

// A page that needs a session redirects a GET to the sign-in page with the
// way back, and refuses a POST.
func TestPageNeedsSession(t *testing.T) {
	s := testSite(t)
	h := s.Page(func(w http.ResponseWriter, r *http.Request, v View) { t.Fatal("the page ran without a session") })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/decks/d1?q=x", nil))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/signin?next=%2Fdecks%2Fd1%3Fq%3Dx" {
		t.Errorf("GET without session: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/decks", strings.NewReader("name=x")))
	if rec.Code != http.StatusForbidden {
		t.Errorf("POST without session: %d", rec.Code)
	}
}

// Every page carries the strict headers and links only our own assets,
// which are served with the right types.
func TestPageHeadersAndAssets(t *testing.T) {
	s := testSite(t)
	rec := httptest.NewRecorder()
	s.Fail(rec, httptest.NewRequest("GET", "/x", nil), View{}, nil)
	h := rec.Header()
	for k, want := range map[string]string{
		"Content-Security-Policy": PageCSP, "Referrer-Policy": "same-origin",
		"X-Content-Type-Options": "nosniff", "Content-Type": "text/html; charset=utf-8",
	} {
		if h.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, h.Get(k), want)
		}
	}
	for _, must := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
		if !strings.Contains(PageCSP, must) {
			t.Errorf("CSP lacks %s", must)
		}
	}
	if strings.Contains(PageCSP, "unsafe-inline") {
		t.Errorf("CSP allows inline code")
	}
	body := rec.Body.String()
	for _, asset := range []string{"app.css", "app.js"} {
		u := s.R.assets[asset]
		if u == "" || !strings.Contains(body, u) {
			t.Fatalf("page does not link %s (%q)", asset, u)
		}
		rec := httptest.NewRecorder()
		Static().ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
		b, _ := io.ReadAll(rec.Body)
		if rec.Code != 200 || len(b) < 100 {
			t.Errorf("%s: %d, %d bytes", u, rec.Code, len(b))
		}
	}
	for _, bad := range []string{"/static/", "/static/../render.go", "/static/nope.css"} {
		rec := httptest.NewRecorder()
		Static().ServeHTTP(rec, httptest.NewRequest("GET", bad, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", bad, rec.Code)
		}
	}
}
