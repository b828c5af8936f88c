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
	"github.com/takhtabush/takhtabush/mcpcore"
)

// inSets returns the catalog's tools in any of sets, in catalog order.
func inSets(sets ...string) []string {
	var out []string
	for _, def := range contracts.Catalog() {
		if slices.ContainsFunc(def.Sets, func(s string) bool { return slices.Contains(sets, s) }) {
			out = append(out, def.Name)
		}
	}
	return out
}

// TestAccountDefaultToolsets: a request that chooses no set gets the
// account's default, read at call time: the lean default for an account
// that never chose, its own choice otherwise; a header overrides it.
func TestAccountDefaultToolsets(t *testing.T) {
	f := newFixture(t)
	settings := contracts.ExposureSettings{}
	f.svc.EXPECT().Exposure(gomock.Any()).DoAndReturn(func(context.Context) (contracts.ExposureSettings, error) { return settings, nil }).AnyTimes()
	srv := f.httpServer(func(r *http.Request) context.Context { return as(contracts.AllScopes...) })
	list := func(sets string) []string {
		header := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
		if sets != "" {
			header.Set(mcpcore.HeaderToolsets, sets)
		}
		status, body := postRPC(t, srv.URL, header, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		var r struct {
			Result struct{ Tools []struct{ Name string } }
		}
		if status != 200 || json.Unmarshal(body, &r) != nil {
			t.Fatalf("%d %s", status, body)
		}
		names := []string{}
		for _, tl := range r.Result.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	lean := inSets(contracts.LeanToolsets...)
	if got := list(""); !slices.Equal(got, lean) || len(lean) >= len(contracts.Catalog()) {
		t.Fatalf("an account that never chose: %v, want the lean default %v", got, lean)
	}
	settings.Toolsets = []string{contracts.ToolsetExchange}
	if got := list(""); !slices.Equal(got, inSets(contracts.ToolsetExchange)) {
		t.Fatalf("an account that chose exchange: %v", got)
	}
	settings.Toolsets = []string{contracts.ToolsetsAll}
	if got := list(""); len(got) != len(contracts.Catalog()) {
		t.Fatalf("an account that keeps every tool: %v", got)
	}
	if got := list("study"); !slices.Equal(got, inSets(contracts.ToolsetStudy)) {
		t.Fatalf("the header overrides the account's default: %v", got)
	}
	// A call outside the sets is an unknown tool, even with the scopes.
	settings.Toolsets = nil
	_, rerr := f.call(as(contracts.AllScopes...), contracts.ToolListTrash, json.RawMessage(`{}`))
	if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, "Unknown tool") {
		t.Fatalf("list_trash outside the lean default: %+v", rerr)
	}
}

// TestEverySetsTools walks every tool of every set as a directory
// reviewer would: a title, explicit readOnlyHint and destructiveHint
// (and openWorldHint), a description of at most 300 characters, and
// every tool in at least one set.
func TestEverySetsTools(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(func(r *http.Request) context.Context { return context.Background() })
	seen := map[string]bool{}
	for _, set := range contracts.Toolsets() {
		header := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, mcpcore.HeaderToolsets: {set.Name}}
		status, body := postRPC(t, srv.URL, header, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		var r struct {
			Result struct {
				Tools []struct {
					Name, Title, Description string
					Annotations              map[string]any
				}
			}
		}
		if status != 200 || json.Unmarshal(body, &r) != nil || len(r.Result.Tools) == 0 {
			t.Fatalf("%s: %d %s", set.Name, status, body)
		}
		for _, tl := range r.Result.Tools {
			seen[tl.Name] = true
			if tl.Title == "" {
				t.Errorf("%s/%s: no title", set.Name, tl.Name)
			}
			for _, hint := range []string{"readOnlyHint", "destructiveHint", "openWorldHint"} {
				if _, ok := tl.Annotations[hint].(bool); !ok {
					t.Errorf("%s/%s: %s is not explicit: %v", set.Name, tl.Name, hint, tl.Annotations)
				}
			}
			if n := len([]rune(tl.Description)); n == 0 || n > 300 {
				t.Errorf("%s/%s: description of %d characters; want 1-300", set.Name, tl.Name, n)
			}
		}
	}
	for _, def := range contracts.Catalog() {
		if !seen[def.Name] {
			t.Errorf("%s is in no toolset", def.Name)
		}
	}
}

// TestInstructionsBudget: the instructions of every choice of sets stay
// within 1,200 characters and name only the chosen sets' tools.
func TestInstructionsBudget(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(func(r *http.Request) context.Context { return context.Background() })
	choices := []string{"", contracts.ToolsetsAll}
	for _, s := range contracts.Toolsets() {
		choices = append(choices, s.Name)
	}
	for _, c := range choices {
		header := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
		if c != "" {
			header.Set(mcpcore.HeaderToolsets, c)
		}
		_, body := postRPC(t, srv.URL, header, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		var r struct {
			Result struct{ Instructions string }
		}
		if json.Unmarshal(body, &r) != nil || r.Result.Instructions == "" {
			t.Fatalf("%q: %s", c, body)
		}
		if n := len([]rune(r.Result.Instructions)); n > 1200 {
			t.Errorf("instructions for %q: %d characters; the budget is 1,200", c, n)
		}
		if c == contracts.ToolsetStudy && strings.Contains(r.Result.Instructions, "import_package") {
			t.Errorf("study's instructions name another set's tool: %s", r.Result.Instructions)
		}
	}
}
