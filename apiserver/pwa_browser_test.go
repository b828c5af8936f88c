package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserInstallableApp: every page names the app's manifest (name,
// start URL, standalone display, 192 and 512 px PNG icons that load) and
// registers the service worker, which takes control; with the server
// gone, a page that cannot load shows the offline page, styled from the
// cached shell, instead of the browser's error (issue 31 §14).
func TestBrowserInstallableApp(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/decks")
	href := evalJS[string](b, `document.querySelector('link[rel="manifest"]').getAttribute("href")`)
	resp, body := e.request(t, http.MethodGet, href, nil, nil)
	var m struct {
		Name, StartURL, Display string
		Icons                   []struct{ Src, Sizes, Type string }
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &m) != nil {
		t.Fatalf("the manifest %s: %d %s", href, resp.StatusCode, body)
	}
	_ = json.Unmarshal(body, &struct {
		StartURL *string `json:"start_url"`
	}{&m.StartURL})
	if m.Name != "Takhtabush" || m.StartURL != "/" || m.Display != "standalone" || len(m.Icons) != 2 {
		t.Errorf("manifest %+v", m)
	}
	for _, icon := range m.Icons {
		if resp, body := e.request(t, http.MethodGet, icon.Src, nil, nil); resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "\x89PNG") {
			t.Errorf("icon %s (%s): %d", icon.Src, icon.Sizes, resp.StatusCode)
		}
	}
	if resp, _ := e.request(t, http.MethodGet, "/sw.js", nil, nil); resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("/sw.js: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	controlled := false
	for deadline := time.Now().Add(15 * time.Second); !controlled && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		controlled = evalJS[bool](b, `navigator.serviceWorker.controller !== null`)
	}
	if !controlled {
		t.Fatal("the service worker never took control of the page")
	}

	// Offline: the server is gone (connections refused), as on a phone
	// without a network.
	if err := e.stop(); err != nil {
		t.Fatal(err)
	}
	b.do("open a page offline", chromedp.Evaluate[chromedp.Void](`window.__tbOldPage = true; location.href = "/stats"`))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!window.__tbOldPage && document.readyState === "complete"`)); err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no page offline")
		}
	}
	if got := b.textOf("h1"); got != "You are offline" {
		t.Errorf("offline, /stats shows %q", got)
	}
	b.look("offline")
	if !evalJS[bool](b, `document.querySelector('link[rel="stylesheet"]').sheet !== null && getComputedStyle(document.body).fontFamily !== ""`) {
		t.Error("offline, the page has no stylesheet: the shell is not cached")
	}
}
