package apiserver_test

import (
	"github.com/chromedp/chromedp"

	"strings"
	"testing"
)

// TestSetupPageInABrowser: a real browser opening the MCP URL gets the
// setup page, rendered, with the MCP URL and the client configurations.
func TestSetupPageInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	for _, path := range []string{"/mcp", "/connect"} {
		b.open(path)
		dom := b.html()
		for _, want := range []string{"Takhtabush", e.base + "/mcp", "claude mcp add", ".cursor/mcp.json", ".vscode/mcp.json", "ChatGPT"} {
			if !strings.Contains(dom, want) {
				t.Errorf("%s in a browser lacks %q:\n%s", path, want, dom)
			}
		}
		if strings.Contains(dom, "{{") || strings.Contains(dom, "jsonrpc") {
			t.Errorf("%s in a browser shows template or protocol text:\n%s", path, dom)
		}
	}
	b.look("connect")
}

// TestBrowserHarnessCatches: the harness's checks can fail. axe-core finds
// the critical violations of a page built to have them, and the event
// listener records an uncaught exception.
func TestBrowserHarnessCatches(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.do("open a bad page", chromedp.Navigate(`data:text/html,<!doctype html><html><body><img src="x.png"><button></button><script>throw new Error("boom")</script></body></html>`))
	found := map[string]string{}
	for _, v := range b.axeRun("bad page") {
		found[v.ID] = v.Impact
	}
	if found["image-alt"] != "critical" || found["button-name"] != "critical" {
		t.Errorf("axe found %v on a page with an unlabelled image and button", found)
	}
	b.mu.Lock()
	problems := strings.Join(b.problems, "\n")
	b.problems = nil
	b.mu.Unlock()
	if !strings.Contains(problems, "boom") {
		t.Errorf("the thrown exception was not recorded: %q", problems)
	}
}

// TestBrowserSignIn: the harness signs a browser in through a one-time
// link, and the browser's session then reaches the web app's API.
func TestBrowserSignIn(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/api/me")
	me := b.text()
	if !strings.Contains(me, testUser) {
		t.Fatalf("/api/me in the signed-in browser: %s", me)
	}
}
