package apiserver_test

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// catalogWhere lists the catalog's tools that keep returns true for.
func catalogWhere(keep func(contracts.ToolDef) bool) []string {
	var out []string
	for _, def := range contracts.Catalog() {
		if keep(def) {
			out = append(out, def.Name)
		}
	}
	return out
}

func inAnySet(sets ...string) func(contracts.ToolDef) bool {
	return func(def contracts.ToolDef) bool {
		return slices.ContainsFunc(def.Sets, func(s string) bool { return slices.Contains(sets, s) })
	}
}

// TestToolsetPaths: the official Go SDK client on /mcp/x/{sets},
// /mcp/readonly and /mcp/x/{sets}/readonly sees only those tools, in both
// eras; a call outside them is an unknown tool; the same key works on
// every path (aliases of /mcp); a fresh account's /mcp is the lean
// default, and X-MCP-Toolsets chooses on /mcp.
func TestToolsetPaths(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		readOnly := func(def contracts.ToolDef) bool { return def.Annotations.ReadOnlyHint }
		cases := []struct {
			path    string
			header  http.Header
			want    []string
			outside string
		}{
			{"/mcp/x/library", nil, catalogWhere(inAnySet(contracts.ToolsetLibrary)), contracts.ToolStartStudySession},
			{"/mcp/readonly", nil, catalogWhere(func(d contracts.ToolDef) bool {
				return readOnly(d) && inAnySet(contracts.LeanToolsets...)(d)
			}), contracts.ToolAddCards},
			{"/mcp/x/study,admin/readonly", nil, catalogWhere(func(d contracts.ToolDef) bool {
				return readOnly(d) && inAnySet(contracts.ToolsetStudy, contracts.ToolsetAdmin)(d)
			}), contracts.ToolUpdateSettings},
			{"/mcp/x/all/readonly", nil, catalogWhere(readOnly), contracts.ToolDeleteDeck},
			{"/mcp", http.Header{http.CanonicalHeaderKey(mcpcore.HeaderToolsets): {"exchange"}}, catalogWhere(inAnySet(contracts.ToolsetExchange)), contracts.ToolSubmitReview},
			// An empty header leaves the choice to the account: a new one is lean.
			{"/mcp", http.Header{http.CanonicalHeaderKey(mcpcore.HeaderToolsets): {""}}, catalogWhere(inAnySet(contracts.LeanToolsets...)), contracts.ToolListTrash},
		}
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			for _, c := range cases {
				h := bearer(key)
				for k, v := range c.header {
					h[k] = v
				}
				cs := connect(t, e.base+c.path, h, version)
				want := c.want
				if version == "2026-07-28" { // the SDK client declares no MCP Apps extension
					want = slices.DeleteFunc(slices.Clone(want), func(n string) bool { d, _ := contracts.Tool(n); return isAppOnly(d) })
				}
				if got := toolNames(t, cs); !slices.Equal(got, want) || len(got) == 0 {
					t.Errorf("%s %s %v: sees %v, want %v", version, c.path, c.header, got, want)
				}
				_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.outside, Arguments: map[string]any{}})
				if err == nil || rpcCode(err) != -32602 || !strings.Contains(err.Error(), "Unknown tool") {
					t.Errorf("%s %s: calling %s outside the choice: %v", version, c.path, c.outside, err)
				}
			}
		}

		// An unknown set in the path is refused with the known names.
		resp, body := e.request(t, http.MethodPost, "/mcp/x/library,nope", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			http.Header{"Authorization": {"Bearer " + key}, "Accept": {"application/json, text/event-stream"}})
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `unknown toolset \"nope\"`) || !strings.Contains(string(body), "study") {
			t.Errorf("unknown set: %d %s", resp.StatusCode, body)
		}
		// Without a credential, an alias answers the /mcp resource's challenge.
		resp, body = e.request(t, http.MethodPost, "/mcp/x/study", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			http.Header{"Accept": {"application/json, text/event-stream"}})
		checkRefusal(t, e, resp, body, true)
	})
}
