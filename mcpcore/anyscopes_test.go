package mcpcore

import (
	"net/http"
	"strings"
	"testing"
)

// TestAnyScopes: a tool with AnyScopes is listed and callable for a
// principal holding all of its Scopes and at least one of its AnyScopes,
// whichever; without any of them it is hidden and a call is -32003 naming
// the choice (and an OAuth caller gets a step-up challenge); the
// x-mcp-scopes header narrows through the same rule; a server whose only
// scoped tool uses AnyScopes still answers a private tools/list.
func TestAnyScopes(t *testing.T) {
	job := echoTool()
	job.Name, job.AnyScopes = "get_job", []string{"a:write", "b:write"}
	both := echoTool()
	both.Name, both.Scopes, both.AnyScopes = "read_job", []string{"a:read"}, []string{"a:write", "b:write"}
	open := echoTool()
	open.Name = "open"
	s := newTestServer(t, Options{}, job, both, open)
	base := NewHTTPHandler(s, HTTPOptions{ResourceMetadataURL: "https://x/.well-known/oauth-protected-resource/mcp"})
	as := func(p Principal) http.Handler { return withPrincipal(base, p) }

	for _, c := range []struct {
		scopes []string
		want   string
	}{
		{nil, "open"},
		{[]string{"a:read"}, "open"},
		{[]string{"a:write"}, "get_job,open"},
		{[]string{"b:write"}, "get_job,open"},
		{[]string{"a:read", "b:write"}, "get_job,read_job,open"},
		{[]string{"a:read", "a:write", "b:write"}, "get_job,read_job,open"},
	} {
		if got, _ := listNames(t, as(Principal{UserID: "u", Scopes: c.scopes}), nil); strings.Join(got, ",") != c.want {
			t.Errorf("scopes %v: listed %v, want %s", c.scopes, got, c.want)
		}
	}
	if got, _ := listNames(t, base, nil); strings.Join(got, ",") != "get_job,read_job,open" {
		t.Errorf("no principal: %v", got)
	}

	callBody := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"x"}}}`
	}
	for _, sc := range []string{"a:write", "b:write"} {
		_, _, out := post(t, as(Principal{UserID: "u", Scopes: []string{sc}}), callBody("get_job"), nil)
		if r := decode(t, out); r.Error != nil {
			t.Errorf("get_job with %s: %s", sc, out)
		}
	}
	status, hdr, out := post(t, as(Principal{UserID: "u", Scopes: []string{"a:read"}}), callBody("get_job"), nil)
	r := decode(t, out)
	if status != 200 || r.Error == nil || r.Error.Code != CodeInsufficientScope ||
		string(r.Error.Data) != `{"anyOfScopes":["a:write","b:write"],"requiredScopes":[]}` || !strings.Contains(r.Error.Message, "a:write, b:write") {
		t.Fatalf("get_job without any of its scopes: %d %s", status, out)
	}
	if hdr.Get("WWW-Authenticate") != "" {
		t.Fatal("a non-OAuth principal got a challenge")
	}
	// Holding one of AnyScopes does not stand in for a missing Scopes entry.
	_, _, out = post(t, as(Principal{UserID: "u", Scopes: []string{"a:write"}}), callBody("read_job"), nil)
	if r := decode(t, out); r.Error == nil || r.Error.Code != CodeInsufficientScope || string(r.Error.Data) != `{"requiredScopes":["a:read"]}` {
		t.Fatalf("read_job without a:read: %s", out)
	}
	status, hdr, _ = post(t, as(Principal{UserID: "u", Scopes: []string{"a:read"}, OAuth: true}), callBody("read_job"), nil)
	want := `Bearer error="insufficient_scope", scope="a:read a:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`
	if status != http.StatusForbidden || hdr.Get("WWW-Authenticate") != want {
		t.Fatalf("OAuth without any of the scopes: %d %q, want %q", status, hdr.Get("WWW-Authenticate"), want)
	}

	// Narrowing applies the same rule to what is left of the grant.
	writer := as(Principal{UserID: "u", Scopes: []string{"a:read", "a:write", "b:write"}})
	for hv, wantList := range map[string]string{
		"b:write":          "get_job,open",
		"a:read":           "open",
		"a:read a:write":   "get_job,read_job,open",
		"a:read,c:write":   "open", // a token outside the grant adds nothing
		"a:read \"b:write": "open",
	} {
		if got, _ := listNames(t, writer, map[string]string{"X-Mcp-Scopes": hv}); strings.Join(got, ",") != wantList {
			t.Errorf("x-mcp-scopes %q: %v, want %s", hv, got, wantList)
		}
	}
	_, _, out = post(t, writer, callBody("get_job"), map[string]string{"X-Mcp-Scopes": "a:read"})
	if r := decode(t, out); r.Error == nil || r.Error.Code != CodeInsufficientScope {
		t.Fatalf("narrowed get_job call: %s", out)
	}
	_, _, out = post(t, writer, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, modernHeaders("tools/list", ""))
	if !strings.Contains(out, `"cacheScope":"private"`) {
		t.Fatalf("a scoped list must be private: %s", out)
	}
	// A server whose only scoped tool uses AnyScopes is scoped too.
	only := NewHTTPHandler(newTestServer(t, Options{}, job, open), HTTPOptions{})
	_, _, out = post(t, withPrincipal(only, Principal{UserID: "u", Scopes: []string{"a:write"}}),
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, modernHeaders("tools/list", ""))
	if !strings.Contains(out, `"cacheScope":"private"`) || !strings.Contains(out, `"get_job"`) {
		t.Fatalf("a list that depends on AnyScopes alone must be private: %s", out)
	}
}
