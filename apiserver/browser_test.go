package apiserver_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium returns the browser the page tests drive, named by
// TAKHTABUSH_TEST_BROWSER (.ci/run installs Debian's chromium and sets it).
func chromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TAKHTABUSH_TEST_BROWSER")
	if path == "" {
		t.Skip("TAKHTABUSH_TEST_BROWSER not set: browser page tests skipped")
	}
	return path
}

// headless runs the browser on url with extra flags and returns its stdout.
func headless(t *testing.T, browser, url string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, browser, append(args, url)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, url, err, errOut.String())
	}
	return out.String()
}

// TestSetupPageInABrowser: a real browser opening the MCP URL gets the
// setup page, rendered, with the MCP URL and the client configurations.
func TestSetupPageInABrowser(t *testing.T) {
	browser := chromium(t)
	e := newEnv(t, sqliteURL(t), nil)
	for _, path := range []string{"/mcp", "/connect"} {
		dom := headless(t, browser, e.addr+path, "--dump-dom")
		for _, want := range []string{"Takhtabush", e.base + "/mcp", "claude mcp add", ".cursor/mcp.json", ".vscode/mcp.json", "ChatGPT"} {
			if !strings.Contains(dom, want) {
				t.Errorf("%s in a browser lacks %q:\n%s", path, want, dom)
			}
		}
		if strings.Contains(dom, "{{") || strings.Contains(dom, "jsonrpc") {
			t.Errorf("%s in a browser shows template or protocol text:\n%s", path, dom)
		}
	}
	shot := filepath.Join(t.TempDir(), "connect.png")
	headless(t, browser, e.addr+"/connect", "--screenshot="+shot, "--window-size=1200,900")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v (%v bytes)", shot, err, st)
	}
	if dir := os.Getenv("TAKHTABUSH_TEST_ARTIFACTS"); dir != "" {
		b, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(dir, "connect.png"), b, 0o644)
	}
}
