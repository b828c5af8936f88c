package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// connectAppHost connects as a chat host's backend does: with the official
// Go SDK client declaring the MCP Apps extension, so the widget's app-only
// tools (undo_last_rating) are there to relay.
func connectAppHost(t *testing.T, endpoint string, header http.Header) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(mcpcore.UIExtension, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "widget-test-host", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: caps})
	tr := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: headerTransport{header: header}, Timeout: 30 * time.Second},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// hostModelContext is the last ui/update-model-context the test host got.
type hostModelContext struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		SessionID string         `json:"sessionId"`
		Reviewed  int            `json:"reviewed"`
		Remaining int            `json:"remaining"`
		Done      bool           `json:"done"`
		Ratings   map[string]int `json:"ratings"`
		Last      string         `json:"last"`
	} `json:"structuredContent"`
}

// lastModelContext returns the host's latest model context update and how
// many it got.
func (b *browser) lastModelContext() (hostModelContext, int) {
	b.t.Helper()
	var all []hostModelContext
	if err := json.Unmarshal([]byte(evalJS[string](b, `JSON.stringify(window.host.modelContext)`)), &all); err != nil {
		b.t.Fatal(err)
	}
	if len(all) == 0 {
		return hostModelContext{}, 0
	}
	return all[len(all)-1], len(all)
}

// openHostDone opens the host page and waits for the widget's end panel.
func (b *browser) openHostDone(h *widgetHost, query string) {
	b.t.Helper()
	b.do("open the host page", chromedp.Navigate(h.url+"/host.html"+query), chromedp.WaitReady(chromedp.CSS("#widget")))
	b.waitWidget("#done", "Session complete")
	b.settleWidget()
}

// settleWidget waits until the widget has stopped asking the host to
// resize its frame (a click lands where the frame shows the element).
func (b *browser) settleWidget() {
	b.t.Helper()
	last, same := -1, 0
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && same < 3; time.Sleep(100 * time.Millisecond) {
		n := evalJS[int](b, `window.host.sizes.length`)
		if n == last {
			same++
		} else {
			last, same = n, 0
		}
	}
}

// TestWidgetUndoAndModelContext: in a host page on another origin, the
// widget tells the host's model where the session stands after each
// rating and each undo (ui/update-model-context: reviewed, remaining, the
// ratings, what happened last); its Undo button takes the last rating
// back through the app-only undo_last_rating (the card's schedule in the
// database is as before and the card is shown again); at the end it
// exports the deck through the host's ui/download-file (a link the test
// downloads), shows the link itself to a host without downloads, and the
// deck's page when export_deck is outside the connection's toolsets.
// Screenshots at 360 and 1280 px, light and dark.
func TestWidgetUndoAndModelContext(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connectAppHost(t, e.addr+"/mcp", bearer(key))
		deck := studyDeck(t, cs)
		h, first := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
		var view contracts.StudyView
		raw, _ := json.Marshal(first.StructuredContent)
		if err := json.Unmarshal(raw, &view); err != nil || view.Current == nil {
			t.Fatalf("structuredContent %s: %v", raw, err)
		}
		ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
		reps := func(cardID string) int {
			t.Helper()
			card, err := e.app.Services().Cards.GetCard(ctx, cardID)
			if err != nil {
				t.Fatal(err)
			}
			return card.State.Reps
		}
		firstCard := view.Current.CardID

		b := widgetBrowser(t, e)
		b.openHost(h, "", "Bonjour")
		if b.widgetText("#undo") != "" {
			t.Errorf("Undo is offered before any rating")
		}

		// A rating: the host's model learns where the session stands.
		b.clickWidget("#reveal")
		b.waitWidget("#back", "Hello")
		b.clickWidget(`button[data-rating="good"]`)
		b.waitWidget("#front", "Merci")
		b.waitWidget("#progress", "1 of")
		mc, n := b.lastModelContext()
		if n != 1 || mc.StructuredContent.SessionID != view.ID || mc.StructuredContent.Reviewed != 1 || mc.StructuredContent.Ratings["good"] != 1 ||
			mc.StructuredContent.Done || len(mc.Content) != 1 || !strings.Contains(mc.Content[0].Text, "1 of ") ||
			!strings.Contains(mc.Content[0].Text, "remaining") || !strings.Contains(mc.Content[0].Text, "rated a card good") {
			t.Errorf("after a rating the host's model context is %d updates, last %+v", n, mc)
		}
		if reps(firstCard) != 1 {
			t.Fatalf("the rated card has %d reviews, want 1", reps(firstCard))
		}
		b.waitWidget("#undo", "Undo")
		b.look("widget-rated")

		// Undo: the card is back, in the database and on screen.
		b.clickWidget("#undo")
		b.waitWidget("#front", "Bonjour")
		b.waitWidget("#status", "Good undone")
		if got := b.widgetText("#progress"); got != "0 of 2 reviewed" {
			t.Errorf("after the undo the progress is %q", got)
		}
		if r := reps(firstCard); r != 0 {
			t.Errorf("after the widget's undo the card has %d reviews, want 0", r)
		}
		mc, n = b.lastModelContext()
		if n != 2 || mc.StructuredContent.Reviewed != 0 || mc.StructuredContent.Ratings["good"] != 0 ||
			!strings.Contains(mc.StructuredContent.Last, "undid their last rating (good)") || !strings.Contains(mc.Content[0].Text, "0 of 2 cards reviewed") {
			t.Errorf("after the undo the host's model context is %d updates, last %+v", n, mc)
		}
		var calls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal([]byte(evalJS[string](b, `JSON.stringify(window.host.calls)`)), &calls)
		var undos int
		for _, c := range calls {
			if c.Name == contracts.ToolUndoLastRating {
				undos++
				if c.Arguments["sessionId"] != view.ID {
					t.Errorf("undo_last_rating called with %v", c.Arguments)
				}
			}
		}
		if undos != 1 {
			t.Errorf("%d undo_last_rating calls through the host, want 1: %+v", undos, calls)
		}
		if b.widgetText("#undo") != "" {
			t.Errorf("Undo is still offered with nothing rated")
		}
		b.look("widget-undone")

		// Both cards easy: the end, and the export through the host.
		for _, want := range []string{"Hello", "Thank you"} {
			b.clickWidget("#reveal")
			b.waitWidget("#back", want)
			b.clickWidget(`button[data-rating="easy"]`)
		}
		b.waitWidget("#done", "2 cards reviewed")
		mc, _ = b.lastModelContext()
		if !mc.StructuredContent.Done || mc.StructuredContent.Reviewed != 2 || mc.StructuredContent.Ratings["easy"] != 2 || !strings.Contains(mc.Content[0].Text, "finished") {
			t.Errorf("at the end the host's model context is %+v", mc)
		}
		b.clickWidget("#export")
		b.waitWidget("#status", "downloads")
		var downloads []struct {
			Contents []struct {
				Type     string `json:"type"`
				URI      string `json:"uri"`
				Name     string `json:"name"`
				MIMEType string `json:"mimeType"`
			} `json:"contents"`
		}
		_ = json.Unmarshal([]byte(evalJS[string](b, `JSON.stringify(window.host.downloads)`)), &downloads)
		if len(downloads) != 1 || len(downloads[0].Contents) != 1 || downloads[0].Contents[0].Type != "resource_link" ||
			!strings.HasPrefix(downloads[0].Contents[0].URI, e.base+"/export/") || !strings.HasSuffix(downloads[0].Contents[0].Name, ".apkg") {
			t.Fatalf("the host's ui/download-file requests: %+v", downloads)
		}
		resp, body := e.request(t, http.MethodGet, strings.TrimPrefix(downloads[0].Contents[0].URI, e.base), nil, nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "PK") {
			t.Errorf("the download link answers %d with %d bytes, want a package", resp.StatusCode, len(body))
		}
		b.look("widget-exported")
		b.checkClean("widget undo")

		// A host without ui/download-file: the link itself.
		h2, _ := newWidgetHost(t, e, cs, map[string]any{"deckId": deck.ID})
		b.openHostDone(h2, "?nodownload=1")
		b.clickWidget("#export")
		b.waitWidget("#export-line", ".apkg")
		if href := b.widgetAttr("#export-link", "href"); !strings.HasPrefix(href, e.base+"/export/") {
			t.Errorf("without downloads the export link is %q", href)
		}

		// export_deck outside the connection's toolsets: the deck's page.
		study := connectAppHost(t, e.addr+"/mcp/x/study", bearer(key))
		h3, _ := newWidgetHost(t, e, study, map[string]any{"deckId": deck.ID})
		b.openHostDone(h3, "")
		b.clickWidget("#export")
		b.waitWidget("#export-line", "Open the deck")
		if href := b.widgetAttr("#export-link", "href"); href != e.base+"/decks/"+deck.ID {
			t.Errorf("without export_deck the export link is %q, want the deck's page", href)
		}
		b.look("widget-export-elsewhere")
	})
}
