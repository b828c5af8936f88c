package web

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Everything interpolated into the setup page is HTML-escaped.
func TestConnectPageEscapes(t *testing.T) {
	evil := `https://x.example/"><script>alert(1)</script>`
	p := NewConnectPage(testSite(t), evil+"/mcp", `https://<b>host</b>/`)
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
		"Claude Code":    {`claude mcp add --transport http takhtabush https://t.example/mcp --header 'Authorization: Bearer tbk_k'`},
		"Claude Desktop": {`"mcp-remote"`, `"https://t.example/mcp"`, `"TAKHTABUSH_AUTH": "Bearer tbk_k"`},
		"Cursor":         {`"mcpServers"`, `"url": "https://t.example/mcp"`, `"Authorization": "Bearer tbk_k"`},
		"VS Code":        {`"servers"`, `"type": "http"`, `"url": "https://t.example/mcp"`, `"Authorization": "Bearer tbk_k"`},
		"ChatGPT":        {"https://t.example/mcp", "OAuth"},
	}
	if len(cfgs) != len(want) {
		t.Fatalf("%d configurations, want %d", len(cfgs), len(want))
	}
	for _, c := range cfgs {
		for _, s := range want[c.Client] {
			if !strings.Contains(c.Text, s) {
				t.Errorf("%s configuration lacks %s:\n%s", c.Client, s, c.Text)
			}
		}
	}
}
