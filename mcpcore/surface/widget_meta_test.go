package surface_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

// widgetMeta reads the study widget resource's _meta from srv.
func widgetMeta(t *testing.T, srv *mcpcore.Server) map[string]any {
	t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{"uri": contracts.StudyWidgetURI}})
	var r struct {
		Result struct {
			Contents []struct {
				Meta map[string]any `json:"_meta"`
			} `json:"contents"`
		} `json:"result"`
	}
	out := srv.Handle(context.Background(), msg)
	if err := json.Unmarshal(out, &r); err != nil || len(r.Result.Contents) != 1 {
		t.Fatalf("resources/read: %v %s", err, out)
	}
	return r.Result.Contents[0].Meta
}

// TestWidgetResourceMeta: the widget's CSP names all four MCP Apps domain
// lists (its own origin for resources, nothing else), ChatGPT's aliases
// say the same, and ui.domain appears only when the operator sets one.
func TestWidgetResourceMeta(t *testing.T) {
	f := newFixture(t)
	meta := widgetMeta(t, f.srv)
	ui, _ := meta["ui"].(map[string]any)
	csp, _ := ui["csp"].(map[string]any)
	want := map[string]string{"resourceDomains": `["https://tb.example"]`, "connectDomains": `[]`, "frameDomains": `[]`, "baseUriDomains": `[]`}
	for k, v := range want {
		if b, _ := json.Marshal(csp[k]); string(b) != v {
			t.Errorf("ui.csp.%s = %s, want %s", k, b, v)
		}
	}
	if _, ok := ui["domain"]; ok {
		t.Errorf("ui.domain sent without --widget-domain: %v", ui)
	}
	oc, _ := meta["openai/widgetCSP"].(map[string]any)
	if b, _ := json.Marshal(oc); string(b) != `{"connect_domains":[],"resource_domains":["https://tb.example"]}` {
		t.Errorf("openai/widgetCSP = %s", b)
	}
	if meta["openai/widgetDomain"] != "https://tb.example" || meta["openai/widgetDescription"] == "" || meta["openai/widgetPrefersBorder"] != true {
		t.Errorf("openai aliases: %v", meta)
	}

	srv, err := surface.NewServer(f.svc, surface.Config{BaseURL: "https://tb.example", Version: "t", WidgetDomain: "tb-example.widgets.host.example"})
	if err != nil {
		t.Fatal(err)
	}
	if ui, _ := widgetMeta(t, srv)["ui"].(map[string]any); ui["domain"] != "tb-example.widgets.host.example" {
		t.Errorf("ui.domain with --widget-domain: %v", ui)
	}
}

// TestStudyToolsInvocationText: the study tools carry ChatGPT's
// invoking/invoked status lines, each at most 64 characters.
func TestStudyToolsInvocationText(t *testing.T) {
	for _, name := range []string{contracts.ToolRenderStudySession, contracts.ToolStartStudySession, contracts.ToolSubmitReview} {
		def, _ := contracts.Tool(name)
		for _, k := range []string{"openai/toolInvocation/invoking", "openai/toolInvocation/invoked"} {
			v, _ := def.Meta[k].(string)
			if v == "" || utf8.RuneCountInString(v) > 64 {
				t.Errorf("%s: %s = %q; want 1-64 characters", name, k, v)
			}
		}
	}
}

// TestUndoLastRatingTool: the widget's undo is an app-only tool of the
// study set that calls UndoLastRating and is audited with the session and
// card it touched.
func TestUndoLastRatingTool(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	def, _ := contracts.Tool(contracts.ToolUndoLastRating)
	if ui, _ := def.Meta["ui"].(map[string]any); !slices.Equal(ui["visibility"].([]string), []string{"app"}) || !slices.Contains(def.Sets, contracts.ToolsetStudy) {
		t.Fatalf("undo_last_rating: meta %v sets %v", def.Meta, def.Sets)
	}
	f.svc.EXPECT().UndoLastRating(gomock.Any(), contracts.UndoLastRatingArgs{SessionID: "s1"}).
		Return(contracts.UndoResult{CardID: "c1", Rating: contracts.RatingGood, Session: contracts.StudySession{ID: "s1", DeckID: "d1"}}, nil)
	var ev contracts.AuditEvent
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e contracts.AuditEvent) error { ev = e; return nil })
	res, rerr := f.call(as(contracts.ScopeStudyWrite), contracts.ToolUndoLastRating, json.RawMessage(`{"sessionId":"s1"}`))
	if rerr != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"cardId":"c1"`) {
		t.Fatalf("undo_last_rating: %+v %+v", res, rerr)
	}
	if ev.Action != "study.undo_rating" || !slices.Equal(ev.AffectedIDs, []string{"s1", "c1"}) {
		t.Errorf("audit row: %+v", ev)
	}
}
