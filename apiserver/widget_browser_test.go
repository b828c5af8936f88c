package apiserver_test

// The MCP Apps study widget in a real browser: a small host page
// (testdata/widgethost/host.html, served from another origin than the
// service) loads the widget that resources/read returns into a sandboxed
// iframe, under the CSP its _meta.ui.csp declares, plays the host side of
// the protocol with the result of a real render_study_session call, and
// relays the widget's tools/call requests to the running service through the
// official Go SDK client, as a chat host's backend does.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// widgetHost serves the host page, the widget and the relay.
type widgetHost struct {
	url string
}

// newWidgetHost reads the widget through cs (resources/read), calls
// render_study_session with args through cs, and serves both to a host
// page; /relay passes the widget's tools/call on through cs.
func newWidgetHost(t *testing.T, e *env, cs *mcp.ClientSession, args map[string]any) (*widgetHost, *mcp.CallToolResult) {
	t.Helper()
	ctx := context.Background()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: contracts.StudyWidgetURI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read %s: %v", contracts.StudyWidgetURI, err)
	}
	widget := rr.Contents[0]
	if widget.MIMEType != "text/html;profile=mcp-app" || !strings.HasPrefix(widget.Text, "<!doctype html>") {
		t.Fatalf("the widget resource is %q, %d bytes", widget.MIMEType, len(widget.Text))
	}
	csp := widgetCSP(t, widget.Meta)

	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: contracts.ToolRenderStudySession, Arguments: args})
	if err != nil || first.IsError {
		t.Fatalf("render_study_session: %v %s", err, resultText(first))
	}
	firstJSON, err := json.Marshal(map[string]any{"arguments": args, "result": first})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("testdata/widgethost/host.html")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /host.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	mux.HandleFunc("GET /widget.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", csp)
		_, _ = io.WriteString(w, widget.Text)
	})
	mux.HandleFunc("GET /session", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(firstJSON)
	})
	mux.HandleFunc("POST /relay", func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := cs.CallTool(r.Context(), &mcp.CallToolParams{Name: p.Name, Arguments: p.Arguments})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(res)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &widgetHost{url: srv.URL}, first
}

// widgetCSP is the Content-Security-Policy a host applies to the widget
// from its _meta.ui.csp (MCP Apps: resourceDomains feed img/media/font/
// style/script sources, connectDomains connect-src; nothing else loads).
func widgetCSP(t *testing.T, meta map[string]any) string {
	t.Helper()
	ui, _ := meta["ui"].(map[string]any)
	c, ok := ui["csp"].(map[string]any)
	if !ok {
		t.Fatalf("the widget resource has no _meta.ui.csp: %v", meta)
	}
	list := func(key string) string {
		var out []string
		items, _ := c[key].([]any)
		for _, d := range items {
			out = append(out, fmt.Sprint(d))
		}
		return strings.Join(out, " ")
	}
	res, conn := list("resourceDomains"), list("connectDomains")
	if conn == "" {
		conn = "'none'"
	}
	return fmt.Sprintf("default-src 'none'; script-src 'unsafe-inline' %[1]s; style-src 'unsafe-inline' %[1]s; "+
		"img-src data: %[1]s; media-src data: %[1]s; font-src %[1]s; connect-src %[2]s; base-uri 'none'; form-action 'none'", res, conn)
}

// widgetBrowser is a browser whose sandboxed frames stay in the page's
// process, so queries reach into the widget's document (the host page
// itself cannot, as in a real host).
func widgetBrowser(t *testing.T, e *env) *browser {
	return newBrowser(t, e,
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "IsolateOrigins,site-per-process,IsolateSandboxedIframes"))
}

// openHost opens the host page with query and waits until the widget shows
// want in its card.
func (b *browser) openHost(h *widgetHost, query, want string) {
	b.t.Helper()
	b.do("open the host page", chromedp.Navigate(h.url+"/host.html"+query), chromedp.WaitReady(chromedp.CSS("#widget")))
	b.waitWidget("#front", want)
	// The widget asks the host to fit its frame to the card; a click
	// while the frame still moves can land beside its target.
	b.settleWidget()
}

// frame is the widget's iframe element in the host page.
func (b *browser) frame() *chromedp.Node {
	b.t.Helper()
	nodes := get(b, "find the widget frame", chromedp.Nodes(chromedp.CSS("#widget")))
	if len(nodes) != 1 {
		b.t.Fatalf("%d widget frames", len(nodes))
	}
	return nodes[0]
}

// inWidget runs a query action in the widget's document with a short
// timeout; ok is false when it did not succeed in time.
func inWidget[T any](b *browser, a func(opt chromedp.QueryOption) chromedp.Action[T]) (T, bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a(chromedp.FromNode(b.frame())))
	return v, err == nil
}

// widgetText returns the text of sel in the widget ("" when not visible).
func (b *browser) widgetText(sel string) string {
	b.t.Helper()
	v, _ := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[string] { return chromedp.Text(chromedp.CSS(sel), o) })
	return v
}

// waitWidget waits until sel in the widget shows text containing want.
func (b *browser) waitWidget(sel, want string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := b.widgetText(sel)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			// What the widget showed, for the person reading the failure.
			png := get(b, "screenshot", chromedp.FullScreenshot(100))
			_ = os.WriteFile(filepath.Join(b.shotsDir, "widget-failure.png"), png, 0o644)
			b.t.Fatalf("the widget's %s shows %q, want %q; the widget shows %q; host saw %s",
				sel, got, want, b.widgetText("#app"), evalJS[string](b, `JSON.stringify(window.host)`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clickWidget clicks sel in the widget with the mouse.
func (b *browser) clickWidget(sel string) {
	b.t.Helper()
	if _, ok := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS(sel), o)
	}); !ok {
		b.t.Fatalf("clicking %s in the widget failed; it shows %q", sel, b.widgetText("#app"))
	}
}

// widgetAttr returns an attribute of sel in the widget.
func (b *browser) widgetAttr(sel, name string) string {
	b.t.Helper()
	v, _ := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[chromedp.AttributeResult] {
		return chromedp.AttributeValue(chromedp.CSS(sel), name, o)
	})
	return v.Value
}

// studyDeck creates a deck of two cards through MCP.
func studyDeck(t *testing.T, cs *mcp.ClientSession) contracts.Deck {
	t.Helper()
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Français"}, &deck)
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "**Bonjour** <script>alert(1)</script>", "back": "Hello"}, {"front": "Merci", "back": "Thank you"},
	}}, nil)
	return deck
}

// TestWidgetReviewsThroughHost: the widget shows the card the server
// rendered, reveals it, and each rating goes through the host's tools/call
// of submit_review into the database; keys 1-4 and space work; the end
// shows a summary and tells the host's model.
func TestWidgetReviewsThroughHost(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.addr+"/mcp", bearer(key), "")
		deck := studyDeck(t, cs)
		h, first := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})

		// The contract: the study link leads the text; every host finds the widget.
		var view contracts.StudyView
		raw, _ := json.Marshal(first.StructuredContent)
		if err := json.Unmarshal(raw, &view); err != nil || view.Current == nil {
			t.Fatalf("structuredContent %s: %v", raw, err)
		}
		if txt := resultText(first); !strings.Contains(txt, e.base+"/study/"+view.ID) {
			t.Fatalf("the text has no absolute study link: %q", txt)
		}
		ui, _ := first.Meta["ui"].(map[string]any)
		if ui["resourceUri"] != contracts.StudyWidgetURI || first.Meta["ui/resourceUri"] != contracts.StudyWidgetURI || first.Meta["openai/outputTemplate"] != contracts.StudyWidgetURI {
			t.Fatalf("_meta does not link the widget: %v", first.Meta)
		}
		if view.FrontHTML != "<p><strong>Bonjour</strong> </p>" || len(view.Ratings) != 4 {
			t.Fatalf("rendered card %q, ratings %+v", view.FrontHTML, view.Ratings)
		}

		b := widgetBrowser(t, e)
		b.openHost(h, "", "Bonjour")
		if got := b.widgetText("#progress"); got != "0 of 2 reviewed" {
			t.Errorf("progress %q", got)
		}
		if n, _ := inWidget(b, func(o chromedp.QueryOption) chromedp.Action[[]*chromedp.Node] {
			return chromedp.Nodes(chromedp.CSS("#front strong"), o)
		}); len(n) != 1 {
			t.Errorf("the front is not the server's HTML (%d <strong>)", len(n))
		}
		b.clickWidget("#reveal")
		b.waitWidget("#back", "Hello")
		good := b.widgetText(`button[data-rating="good"]`)
		if !strings.Contains(good, "Good") || !strings.Contains(good, view.Ratings[2].IntervalHuman) {
			t.Errorf("the good button shows %q, want its interval %q", good, view.Ratings[2].IntervalHuman)
		}
		first0 := view.Current
		// Easy graduates a new card, so it does not come back this session.
		b.clickWidget(`button[data-rating="easy"]`)
		b.waitWidget("#front", "Merci")
		b.waitWidget("#progress", "1 of 2 reviewed")
		if st := b.widgetText("#status"); !strings.Contains(st, "Easy: next in "+view.Ratings[3].IntervalHuman) {
			t.Errorf("after the rating the widget says %q", st)
		}

		// The review is in the database.
		ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
		card, err := e.app.Services().Cards.GetCard(ctx, first0.CardID)
		if err != nil || card.State.Reps != 1 || card.State.LastReview == nil {
			t.Fatalf("after the widget's rating the card is %+v (%v), want one review", card.State, err)
		}
		var calls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		raw = []byte(evalJS[string](b, `JSON.stringify(window.host.calls)`))
		if err := json.Unmarshal(raw, &calls); err != nil || len(calls) < 1 || calls[0].Name != "submit_review" ||
			calls[0].Arguments["position"] != float64(first0.Position) || calls[0].Arguments["rating"] != "easy" {
			t.Fatalf("the widget's tools/call: %s", raw)
		}

		// The keyboard: space reveals, 4 rates easy.
		b.do("press space", chromedp.KeyEvent(" "))
		b.waitWidget("#back", "Thank you")
		b.do("press 4", chromedp.KeyEvent("4"))
		b.waitWidget("#done", "Session complete")
		if txt := b.widgetText("#done"); !strings.Contains(txt, "2 cards reviewed") || !strings.Contains(txt, "Easy: 2") {
			t.Errorf("the summary says %q", txt)
		}
		var after contracts.StudySession
		call(t, cs, "render_study_session", map[string]any{"sessionId": view.ID}, &after)
		if !after.Done || after.Reviewed != 2 {
			t.Errorf("the session is %+v after the widget's ratings, want done after 2", after)
		}
		if got := evalJS[string](b, `JSON.stringify(window.host.modelContext)`); !strings.Contains(got, "2 cards reviewed") {
			t.Errorf("the host's model was told %s", got)
		}
		b.look("widget-done")
		if h := evalJS[float64](b, `Math.max(...window.host.sizes.map(s => s.height))`); h > 500 || h < 100 {
			t.Errorf("the widget asked for %vpx of height, want 100-500", h)
		}
		if link := b.widgetAttr("#link", "href"); link != e.base+"/study/"+view.ID {
			t.Errorf("the study link is %q", link)
		}
		b.checkClean("widget")
	})
}

// TestWidgetRefusedCall: a host that refuses the widget's tools/call gets
// the reason and the absolute study link instead of a stuck widget.
func TestWidgetRefusedCall(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	deck := studyDeck(t, cs)
	h, _ := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
	b := widgetBrowser(t, e)
	b.openHost(h, "?refuse=1", "Bonjour")
	b.clickWidget("#reveal")
	b.waitWidget("#back", "Hello")
	b.settleWidget()
	b.clickWidget(`button[data-rating="again"]`)
	b.waitWidget("#status", "Continue in Takhtabush")
	if link := b.widgetText("#link"); link == "" {
		t.Fatal("no study link after the refusal")
	}
	if !strings.HasPrefix(b.widgetAttr("#link", "href"), e.base+"/study/") {
		t.Errorf("the fallback link is %q", b.widgetAttr("#link", "href"))
	}
	b.checkClean("refused")
}

// TestWidgetDarkNarrow: the widget follows the host's theme (the host page
// sends it at start and on every change) and fits 360 px; screenshots of
// the host with the widget at 360 and 1280 px, light and dark.
func TestWidgetDarkNarrow(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	deck := studyDeck(t, cs)
	h, _ := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
	b := widgetBrowser(t, e)
	b.emulate(360, 780, true, "dark")
	b.openHost(h, "", "Bonjour")
	b.clickWidget("#reveal")
	b.waitWidget("#back", "Hello")
	if th := b.widgetAttr("html", "data-theme"); th != "dark" {
		t.Errorf("in a dark host the widget's theme is %q", th)
	}
	if w := evalJS[float64](b, `Math.max(...window.host.sizes.map(s => s.width))`); w > 360 {
		t.Errorf("the widget is %vpx wide in a 360px host", w)
	}
	b.look("widget")
	// After look's light pass the host said light, then dark again.
	if th := b.widgetAttr("html", "data-theme"); th != "dark" && th != "light" {
		t.Errorf("the widget's theme after the host's changes is %q", th)
	}
	b.emulate(360, 780, true, "light")
	b.do("settle", chromedp.Sleep(200*time.Millisecond))
	if th := b.widgetAttr("html", "data-theme"); th != "light" {
		t.Errorf("after the host switched to light the widget's theme is %q", th)
	}
	b.checkClean("widget dark narrow")
}

// TestWidgetShowsMedia: a card's picture and sound reach the widget as
// short-lived signed URLs on the service's origin (the one origin its
// _meta.ui.csp lists), with no credential in structuredContent; the
// picture loads under that CSP inside the sandboxed frame.
func TestWidgetShowsMedia(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.addr+"/mcp", bearer(key), "")
	pic := picture(t)
	img := intent(t, cs, "image/png", len(pic), "harbour.png")
	if code, body := e.put(t, img, string(pic), nil); code != 204 {
		t.Fatalf("upload: %d %s", code, body)
	}
	snd := intent(t, cs, "audio/wav", len(tinyWAV), "lisboa.wav")
	if code, body := e.put(t, snd, tinyWAV, nil); code != 204 {
		t.Fatalf("upload: %d %s", code, body)
	}
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Harbours"}, &deck)
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
		{"front": "Which harbour?\n\n![A harbour under a yellow sun](media:" + img.MediaID + ")", "back": "**Lisbon** [sound:" + snd.MediaID + "]"},
	}}, nil)
	h, first := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
	raw, _ := json.Marshal(first.StructuredContent)
	if strings.Contains(string(raw), key) || !strings.Contains(string(raw), e.base+"/media/"+img.MediaID+"?") {
		t.Fatalf("structuredContent: %s", raw)
	}
	b := widgetBrowser(t, e)
	b.openHost(h, "", "Which harbour?")
	var w int64
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		w, _ = inWidget(b, func(o chromedp.QueryOption) chromedp.Action[int64] {
			return chromedp.JavascriptAttribute[int64](chromedp.CSS("#front img"), "naturalWidth", o)
		})
		if w == 320 {
			break
		}
	}
	if w != 320 {
		t.Fatalf("the picture did not load in the widget (naturalWidth %d)", w)
	}
	b.clickWidget("#reveal")
	b.waitWidget("#back", "Lisbon")
	if src := b.widgetAttr("#back audio", "src"); !strings.HasPrefix(src, e.base+"/media/"+snd.MediaID+"?") {
		t.Errorf("the sound's src is %q", src)
	}
	b.look("widget-media")
}
