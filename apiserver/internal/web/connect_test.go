package web

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Everything interpolated into the setup page is HTML-escaped.
func TestConnectPageEscapes(t *testing.T) {
	evil := `https://x.example/"><script>alert(1)</script>`
	p := NewConnectPage(testSite(t), evil+"/mcp", `https://<b>host</b>/`, "")
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("GET", "/connect", nil))
	body := rec.Body.String()
	if strings.Contains(body, "<script>") || strings.Contains(body, "<b>host") {
		t.Fatalf("unescaped input in the page:\n%s", body)
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the escaped URL is missing from the page")
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := rec.Header().Get("Content-Security-Policy"); csp != PageCSP {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(body, "<style") || strings.Contains(body, " style=") {
		t.Errorf("inline style in the page (the CSP forbids it):\n%s", body)
	}
}

// The configurations carry the URL and the key where each client wants them.
func TestClientConfigs(t *testing.T) {
	cfgs := ClientConfigs("https://t.example/mcp", "tbk_k")
	want := map[string][]string{
		"Claude Code":                   {`claude mcp add --transport http takhtabush https://t.example/mcp --header 'Authorization: Bearer tbk_k'`},
		"Claude Desktop":                {`"mcp-remote"`, `"https://t.example/mcp"`, `"TAKHTABUSH_AUTH": "Bearer tbk_k"`},
		"Cursor":                        {`"mcpServers"`, `"url": "https://t.example/mcp"`, `"Authorization": "Bearer tbk_k"`},
		"VS Code":                       {`"servers"`, `"type": "http"`, `"url": "https://t.example/mcp"`, `"Authorization": "Bearer tbk_k"`},
		"Claude Desktop, local (stdio)": {`"command": "takhtabush"`, `"stdio"`, `"--db"`, `"TAKHTABUSH_API_KEY": "tbk_k"`},
		"ChatGPT":                       {"https://t.example/mcp"},
		"Claude (claude.ai and Claude Desktop connectors)": {"https://t.example/mcp"},
	}
	if len(cfgs) != len(want) {
		t.Fatalf("%d configurations, want %d", len(cfgs), len(want))
	}
	for _, c := range cfgs {
		if _, ok := want[c.Client]; !ok {
			t.Errorf("unexpected client %q", c.Client)
		}
		// The OAuth connectors need no key, and the page says so.
		if strings.HasPrefix(c.Client, "ChatGPT") || strings.HasPrefix(c.Client, "Claude (") {
			for _, s := range []string{"No key", "OAuth", "Connected apps"} {
				if !strings.Contains(c.Note, s) {
					t.Errorf("%s note lacks %q: %s", c.Client, s, c.Note)
				}
			}
		}
		for _, s := range want[c.Client] {
			if !strings.Contains(c.Text, s) {
				t.Errorf("%s configuration lacks %s:\n%s", c.Client, s, c.Text)
			}
		}
	}
}

// Every copyable block holds only what is to be copied: the ChatGPT block
// is the URL alone, its explanation goes beside it.
func TestClientConfigTextsAreCopyable(t *testing.T) {
	for _, c := range ClientConfigs("https://t.example/mcp", "tbk_k") {
		if c.Client == "ChatGPT" && c.Text != "https://t.example/mcp" {
			t.Errorf("the ChatGPT block is not the URL alone: %q", c.Text)
		}
		if strings.Contains(c.Text, "\n\n") || strings.Contains(c.Text, "OAuth") {
			t.Errorf("%s: prose inside the copyable block: %q", c.Client, c.Text)
		}
	}
}

// The page offers a copy button per block, notes that development mode
// needs no key, and puts a signed-in visitor's own email in the examples.
func TestConnectPageContent(t *testing.T) {
	page := func(devUser string) string {
		rec := httptest.NewRecorder()
		NewConnectPage(testSite(t), "https://t.example/mcp", "", devUser).ServeHTTP(rec, httptest.NewRequest("GET", "/connect", nil))
		return rec.Body.String()
	}
	body := page("")
	pres, buttons := strings.Count(body, "<pre id="), strings.Count(body, "data-copy=")
	if pres < len(ClientConfigs("x", "y"))+2 || buttons != pres {
		t.Errorf("%d blocks with ids, %d copy buttons; want one button per block", pres, buttons)
	}
	if strings.Contains(body, "needs no key") {
		t.Error("the development-mode note shows outside development mode")
	}
	if !strings.Contains(body, "--email you@example.com") {
		t.Error("a visitor's example lacks the placeholder email")
	}
	if dev := page("owner@localhost"); !strings.Contains(dev, "needs no key") || !strings.Contains(dev, "owner@localhost") {
		t.Error("development mode: the page does not say that no key is needed, and for whom")
	}
	css, err := staticFS.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(css), "break-all") {
		t.Error("the stylesheet splits words anywhere (word-break: break-all)")
	}
}
