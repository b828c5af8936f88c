package apiserver_test

// The shared browser-test harness: every page test drives Debian's chromium
// (TAKHTABUSH_TEST_BROWSER) over the DevTools protocol with chromedp, against
// a real running service (newEnv). b.look(name) saves screenshots at 360 px
// and 1280 px in light and dark and runs axe-core on the page, failing on
// any serious or critical violation.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axePath is where `make axe` (npm ci in testdata/axe, pinned by its
// package-lock.json) installs axe-core.
const axePath = "testdata/axe/node_modules/axe-core/axe.min.js"

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

// inCI reports whether the tests run under .ci/run, where nothing a test
// needs may be missing.
func inCI() bool { return os.Getenv("CI") != "" }

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axeScript returns axe-core's source. Outside CI a missing install skips
// the test with the command that fixes it; in CI it fails.
func axeScript(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() {
		b, err := os.ReadFile(axePath)
		axeSource, axeErr = string(b), err
	})
	if axeErr != nil {
		msg := fmt.Sprintf("axe-core is not installed (%v): run `make axe` (npm ci in apiserver/testdata/axe)", axeErr)
		if inCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return axeSource
}

// browser is one headless chromium tab on a running service.
type browser struct {
	t        *testing.T
	e        *env
	ctx      context.Context
	axe      string
	shotsDir string

	mu       sync.Mutex
	problems []string // CSP violations and uncaught exceptions the page reported
}

// newBrowser starts a fresh chromium (its own user-data-dir) for the test;
// browserLife bounds all of one test's browser calls together. It only
// guards against a browser that stalls, so it need not be tight: a test
// that takes screenshots and accessibility checks at two widths in two
// schemes on several pages runs for minutes on a loaded two-core machine
// (a three-minute bound failed such tests there, at a screenshot). It is
// ten minutes, or less when the test binary's own deadline (go test
// -timeout) comes first, so the test fails with the browser's message
// rather than the binary's panic.
func browserLife(t *testing.T) time.Duration {
	life := 10 * time.Minute
	if dl, ok := t.Deadline(); ok {
		life = min(life, max(time.Until(dl)-30*time.Second, time.Minute))
	}
	return life
}

// extra adds command-line options.
func newBrowser(t *testing.T, e *env, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	path := chromium(t)
	axe := axeScript(t)
	profile := t.TempDir() // registered first, so removed after the browser exits
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{t: t, e: e, axe: axe}
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(b.onEvent))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(tctx); err != nil { // starts the browser, with no timeout
		t.Fatalf("starting %s: %v", path, err)
	}
	ctx, cancelTime := context.WithTimeout(tctx, browserLife(t))
	t.Cleanup(cancelTime)
	b.ctx = ctx
	dir := os.Getenv("TAKHTABUSH_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b.shotsDir = dir
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enabling the log domain: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enabling the runtime domain: %v", err)
	}
	return b
}

// onEvent records what a page must never do: break its Content Security
// Policy or throw. It runs on the browser's reading loop, so it only records.
func (b *browser) onEvent(ev any) {
	var p string
	switch ev := ev.(type) {
	case *log.EventEntryAdded:
		if strings.Contains(ev.Entry.Text, "Content Security Policy") {
			p = "CSP: " + ev.Entry.Text
		}
	case *runtime.EventExceptionThrown:
		p = "exception: " + ev.ExceptionDetails.Text
		if ex := ev.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
			p += " " + ex.Description
		}
	}
	if p != "" {
		b.mu.Lock()
		b.problems = append(b.problems, p)
		b.mu.Unlock()
	}
}

// do runs chromedp actions and fails the test on an error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
}

// get runs one chromedp action that returns a value.
func get[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

// open navigates to path (on the service) and waits for the page's body.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.e.addr+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// location returns the current URL's path and query.
func (b *browser) location() string {
	b.t.Helper()
	u, err := url.Parse(get(b, "location", chromedp.Location()))
	if err != nil {
		b.t.Fatal(err)
	}
	return u.RequestURI()
}

// text returns the visible text of the page's body.
func (b *browser) text() string {
	b.t.Helper()
	return get(b, "read the page", chromedp.Text(chromedp.CSS("body")))
}

// textOf returns the visible text of the first element matching sel.
func (b *browser) textOf(sel string) string {
	b.t.Helper()
	return get(b, "read "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// html returns the document's HTML as the browser sees it.
func (b *browser) html() string {
	b.t.Helper()
	return get(b, "read the DOM", chromedp.OuterHTML(chromedp.CSS("html")))
}

// evalJS evaluates a JavaScript expression (awaiting a promise) and decodes its value.
func evalJS[T any](b *browser, expr string) T {
	b.t.Helper()
	return get(b, "evaluate "+expr, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// cookie returns the value of the browser's cookie name for the service, or "".
func (b *browser) cookie(name string) string {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.e.addr}})
	if err != nil {
		b.t.Fatalf("reading cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// signIn signs the browser in as email through a one-time sign-in link
// (the link the magic-link mail and `users login-link` carry). When the
// link opens a confirmation page, its button is pressed.
func (b *browser) signIn(email string) {
	b.t.Helper()
	link, _, err := b.e.app.LoginLink(context.Background(), email)
	if err != nil {
		b.t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		b.t.Fatal(err)
	}
	b.open(u.RequestURI())
	if b.cookie("tb_csrf") == "" && b.exists(`form[method="post"] button`) {
		b.submit(`form[method="post"] button`)
	}
	if b.cookie("tb_csrf") == "" {
		b.t.Fatalf("sign-in as %s did not open a web session; the page says:\n%s", email, b.text())
	}
	b.checkClean("sign-in")
}

// click clicks the first element matching the CSS selector sel (for what
// stays on the page; submit for what loads another).
func (b *browser) click(sel string) {
	b.t.Helper()
	b.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// submit clicks the element matching sel (a form's button or a link) and
// waits until the page it leads to has loaded.
func (b *browser) submit(sel string) {
	b.t.Helper()
	b.do("click "+sel,
		chromedp.Evaluate[chromedp.Void](`window.__tbOldPage = true`),
		chromedp.Click(chromedp.CSS(sel)))
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Evaluating while the page navigates fails; that is a "not yet".
		loaded, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!window.__tbOldPage && document.readyState === "complete"`))
		if err == nil && loaded {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("browser: clicking %s led to no new page (last error %v)", sel, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fill sets the value of the input matching sel.
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	b.do("fill "+sel, chromedp.SetValue(chromedp.CSS(sel), value))
}

// exists reports whether an element matches sel now.
func (b *browser) exists(sel string) bool {
	b.t.Helper()
	return evalJS[bool](b, fmt.Sprintf("document.querySelector(%q) !== null", sel))
}

// checkClean fails the test when a page broke its CSP or threw.
func (b *browser) checkClean(where string) {
	b.t.Helper()
	b.mu.Lock()
	ps := b.problems
	b.problems = nil
	b.mu.Unlock()
	for _, p := range ps {
		b.t.Errorf("%s: %s", where, p)
	}
}

// shotSizes are the widths every page is looked at.
var shotSizes = []struct {
	width, height int64
	mobile        bool
}{{360, 780, true}, {1280, 900, false}}

// look saves screenshots of the current page at 360 px and 1280 px in light
// and dark mode (as name-WIDTH-SCHEME.png) and runs the accessibility check
// in each; it fails on a serious or critical violation, or on a CSP
// violation or exception.
func (b *browser) look(name string) {
	b.t.Helper()
	for _, size := range shotSizes {
		for _, scheme := range []string{"light", "dark"} {
			b.emulate(size.width, size.height, size.mobile, scheme)
			png := get(b, "screenshot", chromedp.FullScreenshot(100))
			file := filepath.Join(b.shotsDir, fmt.Sprintf("%s-%d-%s.png", name, size.width, scheme))
			if err := os.WriteFile(file, png, 0o644); err != nil {
				b.t.Fatal(err)
			}
			where := fmt.Sprintf("%s at %dpx %s", name, size.width, scheme)
			b.accessible(where)
			if scheme == "light" {
				b.fitsWidth(where, size.width)
			}
		}
	}
	b.emulate(0, 0, false, "")
	b.checkClean(name)
}

// fitsWidth fails when the page is wider than the viewport (a phone would
// have to scroll sideways), naming the widest elements that stick out.
func (b *browser) fitsWidth(where string, width int64) {
	b.t.Helper()
	if w := evalJS[int64](b, `document.documentElement.scrollWidth`); w > width {
		out := evalJS[[]string](b, fmt.Sprintf(`[...document.querySelectorAll("body *")]
			.filter(e => e.getBoundingClientRect().right > %d && ![...e.querySelectorAll("*")].some(c => c.getBoundingClientRect().right > %d))
			.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " " + Math.round(e.getBoundingClientRect().right) + "px")`, width, width))
		b.t.Errorf("%s: the page is %dpx wide; sticking out: %v", where, w, out)
	}
}

// emulate sets the viewport (0 clears it) and prefers-color-scheme ("" clears it).
func (b *browser) emulate(width, height int64, mobile bool, scheme string) {
	b.t.Helper()
	var err error
	if width == 0 {
		_, err = chromedp.Call(b.ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
	} else {
		_, err = chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: height, DeviceScaleFactor: 1, Mobile: mobile})
	}
	if err == nil {
		_, err = chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	}
	if err != nil {
		b.t.Fatalf("emulating %dpx %s: %v", width, scheme, err)
	}
	b.do("settle", chromedp.Sleep(50*time.Millisecond))
}

// axeViolation is the part of an axe-core result the check reads.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target         []any  `json:"target"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// accessible injects axe-core into the page (through the DevTools protocol,
// so the page's CSP stays as strict as it is) and fails on a serious or
// critical violation; lesser ones are logged.
func (b *browser) accessible(where string) {
	b.t.Helper()
	serious := 0
	for _, v := range b.axeRun(where) {
		if v.Impact != "serious" && v.Impact != "critical" {
			b.t.Logf("axe %s (%s) on %s: %s (%d elements)", v.ID, v.Impact, where, v.Help, len(v.Nodes))
			continue
		}
		serious++
		var nodes []string
		for _, n := range v.Nodes {
			nodes = append(nodes, fmt.Sprintf("%v: %s", n.Target, n.FailureSummary))
		}
		b.t.Errorf("axe %s (%s) on %s: %s\n  %s", v.ID, v.Impact, where, v.Help, strings.Join(nodes, "\n  "))
	}
	if serious == 0 {
		b.t.Logf("axe: %s: no serious or critical violation", where)
	}
}

// axeRun injects axe-core and returns the page's violations.
func (b *browser) axeRun(where string) []axeViolation {
	b.t.Helper()
	var violations []axeViolation
	err := func() error {
		yes := true
		res, err := chromedp.Call(b.ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: b.axe})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("injecting axe-core: %s", res.ExceptionDetails.Text)
		}
		res, err = chromedp.Call(b.ctx, runtime.Evaluate, runtime.EvaluateParams{
			Expression:    `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`,
			AwaitPromise:  &yes,
			ReturnByValue: &yes,
		})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("axe.run: %s", res.ExceptionDetails.Text)
		}
		var raw string
		if err := json.Unmarshal(res.Result.Value, &raw); err != nil {
			return err
		}
		return json.Unmarshal([]byte(raw), &violations)
	}()
	if err != nil {
		b.t.Fatalf("accessibility check of %s: %v", where, err)
	}
	return violations
}

// chromedpSetSelect chooses value in the select matching sel and fires
// its change event, as a person's choice does.
func chromedpSetSelect(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, sel, value))
}
