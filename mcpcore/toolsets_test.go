package mcpcore

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// setServer has three sets: study (read_a, both), library (write_a,
// both), and the read-only tool read_a; everywhere names no set.
func setServer(t testing.TB, def func(context.Context) ([]string, error)) *Server {
	mk := func(name string, readOnly bool, sets ...string) Tool {
		tl := echoTool()
		tl.Name, tl.Sets = name, sets
		tl.Annotations = &ToolAnnotations{ReadOnlyHint: &readOnly}
		return tl
	}
	return newTestServer(t, Options{
		Instructions: "Base.",
		Toolsets: []Toolset{
			{Name: "study", Instructions: "Study hint."},
			{Name: "library", Instructions: "Library hint."},
			{Name: "admin"},
		},
		DefaultToolsets: def,
	}, mk("read_a", true, "study"), mk("write_a", false, "library"), mk("both", false, "study", "library"), mk("everywhere", false))
}

func TestToolsetsChooseListAndCall(t *testing.T) {
	var defaults atomic.Int32
	s := setServer(t, func(context.Context) ([]string, error) {
		defaults.Add(1)
		return []string{"study"}, nil
	})
	h := NewHTTPHandler(s, HTTPOptions{})
	viaPath := func(sel ToolSelection) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(WithToolSelection(r.Context(), sel)))
		})
	}
	cases := []struct {
		name string
		h    http.Handler
		hdr  map[string]string
		want string
	}{
		{"default", h, nil, "read_a,both,everywhere"},
		{"header library", h, map[string]string{HeaderToolsets: "library"}, "write_a,both,everywhere"},
		{"header two sets", h, map[string]string{HeaderToolsets: " Study , library,study"}, "read_a,write_a,both,everywhere"},
		{"header all", h, map[string]string{HeaderToolsets: "all"}, "read_a,write_a,both,everywhere"},
		{"header readonly", h, map[string]string{HeaderToolsets: "all", HeaderReadonly: "true"}, "read_a"},
		{"default readonly", h, map[string]string{HeaderReadonly: "1"}, "read_a"},
		{"path wins over header", viaPath(ToolSelection{Sets: []string{"library"}}), map[string]string{HeaderToolsets: "study"}, "write_a,both,everywhere"},
		{"path readonly", viaPath(ToolSelection{ReadOnly: true}), map[string]string{HeaderToolsets: "all"}, "read_a"},
		{"admin only", h, map[string]string{HeaderToolsets: "admin"}, "everywhere"},
	}
	for _, era := range []string{"legacy", "modern"} {
		for _, c := range cases {
			hdr := map[string]string{}
			for k, v := range c.hdr {
				hdr[k] = v
			}
			list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			if era == "modern" {
				for k, v := range modernHeaders("tools/list", "") {
					hdr[k] = v
				}
				list = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`
			}
			_, _, body := post(t, c.h, list, hdr)
			got := decodeTools(t, body)
			if strings.Join(got, ",") != c.want {
				t.Errorf("%s %s: listed %v, want %s", era, c.name, got, c.want)
			}
			// Every tool outside the list is unknown to tools/call.
			for _, name := range []string{"read_a", "write_a", "both", "everywhere"} {
				callHdr := map[string]string{}
				for k, v := range c.hdr {
					callHdr[k] = v
				}
				body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"hi"}}}`
				if era == "modern" {
					for k, v := range modernHeaders("tools/call", name) {
						callHdr[k] = v
					}
					body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"hi"},` + modernMeta + `}}`
				}
				_, _, out := post(t, c.h, body, callHdr)
				r := decode(t, out)
				listed := strings.Contains(","+c.want+",", ","+name+",")
				switch {
				case listed && r.Error != nil:
					t.Errorf("%s %s: call %s: %s", era, c.name, name, out)
				case !listed && (r.Error == nil || r.Error.Code != CodeInvalidParams || r.Error.Message != "Unknown tool: "+name):
					t.Errorf("%s %s: call %s outside the selection: %s", era, c.name, name, out)
				}
			}
		}
	}
	if defaults.Load() == 0 {
		t.Fatal("the default was never asked for")
	}
}

func decodeTools(t testing.TB, body string) []string {
	t.Helper()
	var r struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	names := []string{}
	for _, tl := range r.Result.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestToolsetsRefuseUnknownNames(t *testing.T) {
	s := setServer(t, nil)
	h := NewHTTPHandler(s, HTTPOptions{})
	for _, hdr := range []map[string]string{
		{HeaderToolsets: "nope"},
		{HeaderToolsets: "study,nope"},
		{HeaderToolsets: " , "},
		{HeaderReadonly: "yes"},
	} {
		status, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr)
		r := decode(t, body)
		if r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("%v: %d %s", hdr, status, body)
		}
		if strings.Contains(hdr[HeaderToolsets], "nope") && !strings.Contains(r.Error.Message, "known: all, study, library, admin") {
			t.Errorf("%v: the error does not name the known sets: %s", hdr, r.Error.Message)
		}
	}
	if _, err := NewServer(Implementation{Name: "x", Version: "1"}, Options{}, Catalog{Tools: []Tool{func() Tool {
		tl := echoTool()
		tl.Sets = []string{"undeclared"}
		return tl
	}()}}); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("a tool in an undeclared set: %v", err)
	}
	if _, err := NewServer(Implementation{Name: "x", Version: "1"}, Options{Toolsets: []Toolset{{Name: "all"}}}, Catalog{}); err == nil {
		t.Fatal("a set named all was accepted")
	}
}

// The instructions of initialize and server/discover name only the
// chosen sets'.
func TestToolsetsInstructions(t *testing.T) {
	s := setServer(t, func(context.Context) ([]string, error) { return []string{"library"}, nil })
	h := NewHTTPHandler(s, HTTPOptions{})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	for _, c := range []struct {
		sets, want string
	}{
		{"", `"instructions":"Base. Library hint."`},
		{"study", `"instructions":"Base. Study hint."`},
		{"all", `"instructions":"Base. Study hint. Library hint."`},
	} {
		hdr := map[string]string{}
		if c.sets != "" {
			hdr[HeaderToolsets] = c.sets
		}
		if _, _, out := post(t, h, init, hdr); !strings.Contains(out, c.want) {
			t.Errorf("initialize with %q: %s", c.sets, out)
		}
		for k, v := range modernHeaders("server/discover", "") {
			hdr[k] = v
		}
		if _, _, out := post(t, h, discover, hdr); !strings.Contains(out, c.want) {
			t.Errorf("server/discover with %q: %s", c.sets, out)
		}
	}
}

// ArgsSchema validates behind a lighter listed InputSchema: the list
// shows InputSchema, a call is checked against ArgsSchema.
func TestArgsSchemaValidatesBehindListedSchema(t *testing.T) {
	tl := echoTool()
	tl.InputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	tl.ArgsSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":3}},"required":["text"]}`)
	h := NewHTTPHandler(newTestServer(t, Options{}, tl), HTTPOptions{})
	if _, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); !strings.Contains(body, `"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`) {
		t.Fatalf("tools/list does not serve InputSchema: %s", body)
	}
	_, _, body := post(t, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"toolong"}}}`, nil)
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "/text") {
		t.Fatalf("a call past ArgsSchema's bound: %s", body)
	}
	if _, _, body := post(t, h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`, nil); strings.Contains(body, `"isError":true`) {
		t.Fatalf("a call within ArgsSchema: %s", body)
	}
	bad := echoTool()
	bad.ArgsSchema = json.RawMessage(`{"type":"array"}`)
	if _, err := NewServer(Implementation{Name: "x", Version: "1"}, Options{}, Catalog{Tools: []Tool{bad}}); err == nil {
		t.Fatal("an ArgsSchema that is not an object schema was accepted")
	}
}

// An app-only tool (_meta.ui.visibility ["app"]) is listed and callable
// in the handshake era and for a 2026-07-28 client that declares the MCP
// Apps extension; for one that does not, it does not exist.
func TestAppOnlyToolNeedsTheUIExtension(t *testing.T) {
	app := echoTool()
	app.Name, app.Meta = "app_undo", map[string]any{"ui": map[string]any{"visibility": []string{"app"}}}
	h := NewHTTPHandler(newTestServer(t, Options{}, echoTool(), app), HTTPOptions{})
	withUI := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"` + UIExtension + `":{}}}}`
	for _, c := range []struct {
		name, meta string
		hdr        map[string]string
		listed     bool
	}{
		{"handshake era", "", nil, true},
		{"modern with the UI extension", withUI, modernHeaders("tools/list", ""), true},
		{"modern without it", modernMeta, modernHeaders("tools/list", ""), false},
	} {
		params := "{}"
		if c.meta != "" {
			params = "{" + c.meta + "}"
		}
		_, _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`, c.hdr)
		names := decodeTools(t, body)
		if slices.Contains(names, "app_undo") != c.listed || !slices.Contains(names, "echo") {
			t.Errorf("%s: listed %v", c.name, names)
		}
		callParams := `{"name":"app_undo","arguments":{"text":"hi"}}`
		hdr := c.hdr
		if c.meta != "" {
			callParams = `{"name":"app_undo","arguments":{"text":"hi"},` + c.meta + `}`
			hdr = modernHeaders("tools/call", "app_undo")
		}
		_, _, out := post(t, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+callParams+`}`, hdr)
		if r := decode(t, out); (r.Error == nil) != c.listed {
			t.Errorf("%s: calling the app-only tool: %s", c.name, out)
		}
	}
}
