package surface_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestScopeMatrix: for every tool, a principal holding exactly its scopes
// (and, for a tool with AnyScopes, each one of those alone) sees and calls
// it; a principal missing any one of them (or all of AnyScopes) neither
// sees it nor reaches the service, and gets -32003 naming the required
// scopes.
func TestScopeMatrix(t *testing.T) {
	for _, def := range contracts.Catalog() {
		ex := contracts.Examples()[def.Name]
		need := append(slices.Clone(def.Scopes), def.WriteScopes...) // the examples use the writing form
		grants := map[string][]contracts.Scope{"granted": need}
		for _, s := range def.AnyScopes {
			grants["granted_"+string(s)] = append(slices.Clone(need), s)
		}
		if len(def.AnyScopes) > 0 {
			delete(grants, "granted")
			t.Run(def.Name+"/without_any_of", func(t *testing.T) {
				f := newFixture(t)
				f.exposure(contracts.ExposureSettings{})
				ctx := as(without(contracts.AllScopes, def.AnyScopes...)...)
				if slices.Contains(f.listTools(ctx), def.Name) {
					t.Fatalf("%s listed without any of %v", def.Name, def.AnyScopes)
				}
				_, rerr := f.call(ctx, def.Name, ex.Args) // no service expectation: reaching it fails the test
				if rerr == nil || rerr.Code != -32003 {
					t.Fatalf("want -32003, got %+v", rerr)
				}
				var data struct{ AnyOfScopes []string }
				if json.Unmarshal(rerr.Data, &data) != nil || !slices.Equal(data.AnyOfScopes, contracts.ScopeStrings(def.AnyScopes)) {
					t.Fatalf("error data %s does not name the scopes of which one is needed, %v", rerr.Data, def.AnyScopes)
				}
			})
		}
		for name, need := range grants {
			t.Run(def.Name+"/"+name, func(t *testing.T) {
				f := newFixture(t)
				f.exposure(contracts.ExposureSettings{})
				if def.AuditAction != "" {
					f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).Return(nil)
				}
				f.expectTool(def.Name, ex.Result, nil)
				ctx := as(need...)
				if !slices.Contains(f.listTools(ctx), def.Name) {
					t.Fatalf("%s not listed for scopes %v", def.Name, need)
				}
				res, rerr := f.call(ctx, def.Name, ex.Args)
				if rerr != nil || res.IsError {
					t.Fatalf("call failed: %+v %+v", rerr, res)
				}
				want, _ := json.Marshal(ex.Result)
				if def.JobKind != "" { // a job's id is its operation id
					j := ex.Result.(contracts.Job)
					if want, _ = json.Marshal(struct {
						OperationID string `json:"operationId"`
						contracts.Job
					}{j.ID, j}); j.ID == "" {
						t.Fatal("the example job has no id")
					}
				}
				if !jsonEqual(t, res.StructuredContent, want) {
					t.Fatalf("structuredContent = %s, want %s", res.StructuredContent, want)
				}
			})
		}
		for _, missing := range need {
			t.Run(def.Name+"/without_"+string(missing), func(t *testing.T) {
				f := newFixture(t)
				f.exposure(contracts.ExposureSettings{})
				ctx := as(without(contracts.AllScopes, missing)...)
				listed := slices.Contains(f.listTools(ctx), def.Name)
				if slices.Contains(def.Scopes, missing) && listed {
					t.Fatalf("%s listed without %s", def.Name, missing)
				}
				_, rerr := f.call(ctx, def.Name, ex.Args) // no service expectation: reaching it fails the test
				if rerr == nil || rerr.Code != -32003 {
					t.Fatalf("want -32003, got %+v", rerr)
				}
				if !strings.Contains(string(rerr.Data), string(missing)) {
					t.Fatalf("error data %s does not name the missing scope %s", rerr.Data, missing)
				}
			})
		}
	}
}

// TestExposure: a tool switched off by the account, or a write tool in
// read-only mode, does not exist for the caller: not listed, and an unknown
// tool (-32602) when called, read at call time.
func TestExposure(t *testing.T) {
	f := newFixture(t)
	all := []string{contracts.ToolsetsAll}
	settings := contracts.ExposureSettings{DisabledTools: []string{contracts.ToolSearchCards}, Toolsets: all}
	f.svc.EXPECT().Exposure(gomock.Any()).DoAndReturn(func(context.Context) (contracts.ExposureSettings, error) { return settings, nil }).AnyTimes()
	ctx := as(contracts.AllScopes...)
	names := f.listTools(ctx)
	if slices.Contains(names, contracts.ToolSearchCards) || len(names) != len(contracts.Catalog())-1 {
		t.Fatalf("listed %v", names)
	}
	_, rerr := f.call(ctx, contracts.ToolSearchCards, json.RawMessage(`{}`))
	if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, "Unknown tool") {
		t.Fatalf("switched-off tool: %+v", rerr)
	}

	// The next call sees a change at once: read-only hides every write.
	settings = contracts.ExposureSettings{ReadOnly: true, Toolsets: all}
	names = f.listTools(ctx)
	for _, def := range contracts.Catalog() {
		if slices.Contains(names, def.Name) == def.Mutates {
			t.Errorf("read-only: %s listed=%v mutates=%v", def.Name, !def.Mutates, def.Mutates)
		}
	}
	if _, rerr := f.call(ctx, contracts.ToolAddCards, contracts.Examples()[contracts.ToolAddCards].Args); rerr == nil || rerr.Code != -32602 {
		t.Fatalf("write tool in read-only mode: %+v", rerr)
	}
	// render_study_session stays, but cannot start a session (a write).
	res, rerr := f.call(ctx, contracts.ToolRenderStudySession, json.RawMessage(`{"deckId":"d1"}`))
	if rerr != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "read-only") {
		t.Fatalf("render with deckId in read-only mode: %+v %+v", res, rerr)
	}
}

// TestNarrowingHeader: x-mcp-scopes narrows the grant over HTTP; an
// invalid header narrows to nothing, never widens.
func TestNarrowingHeader(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	srv := f.httpServer(func(r *http.Request) context.Context {
		return as(contracts.ScopeDecksRead, contracts.ScopeStatsRead, contracts.ScopeDecksWrite)
	})
	list := func(h string) []string {
		header := http.Header{}
		if h != "" {
			header.Set("x-mcp-scopes", h)
		}
		header.Set("MCP-Protocol-Version", "2025-11-25")
		status, body := postRPC(t, srv.URL, header, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
		var r struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range r.Result.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	granted := []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStatsRead, contracts.ScopeDecksWrite}
	want := 0
	for _, tool := range contracts.Catalog() {
		if tool.Allows(granted) {
			want++
		}
	}
	if got := list(""); len(got) != want || want < 15 {
		t.Fatalf("no header: %d tools %v, want the %d of decks:read, stats:read, decks:write", len(got), got, want)
	}
	if got := list("stats:read"); !slices.Equal(got, []string{contracts.ToolGetStats, contracts.ToolGetStudyPlan, contracts.ToolGetRetentionAdvice}) {
		t.Fatalf("narrowed to stats:read: %v", got)
	}
	if got := list("stats:read study:write"); len(got) != 3 {
		t.Fatalf("a header cannot widen: %v", got)
	}
	// The job tools need one of their AnyScopes: narrowing away
	// decks:write, the only one granted, hides them.
	if got := list("decks:read decks:write"); !slices.Contains(got, contracts.ToolGetJob) || !slices.Contains(got, contracts.ToolCancelJob) {
		t.Fatalf("narrowed to decks:read decks:write: %v lacks the job tools", got)
	}
	if got := list("decks:read stats:read"); slices.Contains(got, contracts.ToolGetJob) || slices.Contains(got, contracts.ToolCancelJob) {
		t.Fatalf("narrowed to decks:read stats:read: %v lists a job tool", got)
	}
	if got := list(`decks:read "x"`); len(got) != 0 {
		t.Fatalf("invalid header must leave no tools: %v", got)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
