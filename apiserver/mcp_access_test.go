package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// toolsNeeding lists the catalog tools that granted allows: all of their
// Scopes and one of their AnyScopes (the job tools).
// (The SDK client speaks 2026-07-28 without the MCP Apps extension, so
// app-only tools are not listed to it.)
func toolsNeeding(granted ...contracts.Scope) []string {
	var names []string
	for _, d := range contracts.Catalog() {
		if d.Allows(granted) && !isAppOnly(d) {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}

// callErr calls a tool that must fail with a JSON-RPC error and returns its code.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args any) int64 {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		t.Fatalf("%s succeeded (isError=%v: %s), want a JSON-RPC error", name, res.IsError, resultText(res))
	}
	return rpcCode(err)
}

// scopeRefused asserts that calling name is refused for insufficient
// scope: through the SDK client, and on the wire with code -32003 and the
// required scopes. (The SDK v1.8.0 client reads -32003 as its own "client
// is closing" code and reports "connection closed: … insufficient scope",
// dropping the code; the raw request checks it.)
func scopeRefused(t *testing.T, e *env, cs *mcp.ClientSession, header http.Header, name string, args any) {
	t.Helper()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil || !strings.Contains(err.Error(), "insufficient scope") {
		t.Errorf("SDK call of %s: %v, want insufficient scope", name, err)
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	resp, body := e.rpc(t, string(raw), header)
	var m struct {
		Error struct {
			Code int `json:"code"`
			Data struct {
				RequiredScopes []string `json:"requiredScopes"`
				AnyOfScopes    []string `json:"anyOfScopes"`
			} `json:"data"`
		} `json:"error"`
	}
	def, _ := contracts.Tool(name)
	if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != http.StatusOK || m.Error.Code != -32003 ||
		!slices.Equal(m.Error.Data.RequiredScopes, contracts.ScopeStrings(def.Scopes)) || !slices.Equal(m.Error.Data.AnyOfScopes, contracts.ScopeStrings(def.AnyScopes)) {
		t.Errorf("%s on the wire: %d %s, want 200 with -32003, requiredScopes %v and anyOfScopes %v", name, resp.StatusCode, body, def.Scopes, def.AnyScopes)
	}
}

// A decks:read key sees only the decks:read tools and gets -32003 outside
// them; the x-mcp-scopes header narrows a wider key the same way; a
// malformed header leaves nothing.
func TestScopesAndNarrowing(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		readKey, _ := e.key(t, contracts.ScopeDecksRead)
		fullKey, _ := e.key(t, contracts.AllScopes...)
		readOnly := toolsNeeding(contracts.ScopeDecksRead)
		// get_job and cancel_job need one of the scopes that start jobs
		// (AnyScopes: decks:write, study:write), which a decks:read key lacks.
		if len(readOnly) != 8 { // list_decks, get_deck, search_cards, get_study_snapshot, get_settings, get_note, export_deck, list_trash
			t.Fatalf("decks:read tools = %v", readOnly)
		}

		cs := connect(t, e.base+"/mcp", bearer(readKey), "")
		if got := sorted(toolNames(t, cs)); !slices.Equal(got, readOnly) {
			t.Errorf("decks:read key lists %v, want %v", got, readOnly)
		}
		call(t, cs, "list_decks", map[string]any{}, nil)
		scopeRefused(t, e, cs, bearer(readKey), "create_deck", map[string]any{"name": "x"})
		scopeRefused(t, e, cs, bearer(readKey), "get_stats", map[string]any{})
		scopeRefused(t, e, cs, bearer(readKey), "get_job", map[string]any{"jobId": "j1"})

		h := bearer(fullKey)
		h.Set("X-Mcp-Scopes", "decks:read")
		narrowed := connect(t, e.base+"/mcp", h, "")
		if got := sorted(toolNames(t, narrowed)); !slices.Equal(got, readOnly) {
			t.Errorf("narrowed to decks:read lists %v, want %v", got, readOnly)
		}
		scopeRefused(t, e, narrowed, h, "create_deck", map[string]any{"name": "x"})

		h = bearer(fullKey)
		h.Set("X-Mcp-Scopes", "decks:read, stats:read")
		two := connect(t, e.base+"/mcp", h, "")
		if got, want := sorted(toolNames(t, two)), toolsNeeding(contracts.ScopeDecksRead, contracts.ScopeStatsRead); !slices.Equal(got, want) {
			t.Errorf("narrowed to decks:read stats:read lists %v, want %v", got, want)
		}
		// Narrowed to study:write alone, the job tools stay (one of their
		// AnyScopes) beside the study tools.
		h = bearer(fullKey)
		h.Set("X-Mcp-Scopes", "study:write")
		study := connect(t, e.base+"/mcp", h, "")
		if got, want := sorted(toolNames(t, study)), toolsNeeding(contracts.ScopeStudyWrite); !slices.Equal(got, want) ||
			!slices.Contains(got, contracts.ToolGetJob) || !slices.Contains(got, contracts.ToolCancelJob) || !slices.Contains(got, contracts.ToolOptimizeParameters) {
			t.Errorf("narrowed to study:write lists %v, want %v with the job tools and optimize_parameters", got, want)
		}

		// Narrowing never widens: a decks:read key asking for everything keeps decks:read.
		h = bearer(readKey)
		h.Set("X-Mcp-Scopes", contracts.JoinScopes(contracts.AllScopes, " "))
		wide := connect(t, e.base+"/mcp", h, "")
		if got := sorted(toolNames(t, wide)); !slices.Equal(got, readOnly) {
			t.Errorf("decks:read key asking for every scope lists %v, want %v", got, readOnly)
		}

		for _, bad := range []string{`decks:read "x`, "nonsense-scope"} {
			h = bearer(fullKey)
			h.Set("X-Mcp-Scopes", bad)
			none := connect(t, e.base+"/mcp", h, "")
			if got := toolNames(t, none); len(got) != 0 {
				t.Errorf("x-mcp-scopes %q lists %v, want nothing", bad, got)
			}
			scopeRefused(t, e, none, h, "list_decks", map[string]any{})
		}
	})
}

// A tool switched off in the account's settings, and read-only mode, make
// tools unknown on the very next call of an already connected client.
func TestExposureSettingsApplyOnNextCall(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		call(t, cs, "search_cards", map[string]any{}, nil) // listed and callable at first

		cookies, csrf := e.signIn(t, testUser)
		setExposure := func(s contracts.ExposureSettings) {
			t.Helper()
			resp, body := e.request(t, http.MethodPut, "/api/exposure", s, http.Header{auth.CSRFHeader: {csrf}}, cookies...)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("PUT /api/exposure: %d %s", resp.StatusCode, body)
			}
		}

		setExposure(contracts.ExposureSettings{DisabledTools: []string{"search_cards"}})
		if code := callErr(t, cs, "search_cards", map[string]any{}); code != -32602 {
			t.Errorf("switched-off search_cards: code %d, want -32602 (unknown tool)", code)
		}
		if slices.Contains(toolNames(t, cs), "search_cards") {
			t.Error("switched-off search_cards is still listed")
		}
		call(t, cs, "list_decks", map[string]any{}, nil)

		setExposure(contracts.ExposureSettings{ReadOnly: true})
		if code := callErr(t, cs, "create_deck", map[string]any{"name": "x"}); code != -32602 {
			t.Errorf("create_deck in read-only mode: code %d, want -32602 (unknown tool)", code)
		}
		for _, name := range toolNames(t, cs) {
			if d, _ := contracts.Tool(name); d.Mutates {
				t.Errorf("read-only mode lists mutating tool %s", name)
			}
		}
		call(t, cs, "search_cards", map[string]any{}, nil) // back on
	})
}

// checkRefusal asserts a 401 with the Bearer challenge and a JSON body:
// JSON-RPC on /mcp, the REST error elsewhere.
func checkRefusal(t *testing.T, e *env, resp *http.Response, body []byte, rpc bool) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d (%s), want 401", resp.StatusCode, body)
	}
	// A refused token adds error="invalid_token" (RFC 6750 §3.1); no
	// credential at all gets the bare challenge.
	want := `Bearer resource_metadata="` + e.base + `/.well-known/oauth-protected-resource/mcp"`
	if got := resp.Header.Get("WWW-Authenticate"); got != want && got != want+`, error="invalid_token"` {
		t.Errorf("WWW-Authenticate = %q, want %q (with error=\"invalid_token\" when a token was sent)", got, want)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want JSON", ct)
	}
	if rpc {
		var m struct {
			JSONRPC string           `json:"jsonrpc"`
			ID      *json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.ID != nil || m.Error.Code != httperr.CodeUnauthenticated || m.Error.Message == "" {
			t.Errorf("body %s is not a JSON-RPC 401 error (%v)", body, err)
		}
		return
	}
	var m struct {
		Error struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Error.Kind != "unauthenticated" || m.Error.Message == "" {
		t.Errorf("body %s is not a REST unauthenticated error (%v)", body, err)
	}
}

// Expired, revoked, malformed and foreign keys, and no key at all, get
// 401 with a JSON body and the Bearer challenge, on /mcp and /api.
func TestRefusedKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		ctx := context.Background()
		expiring, err := e.app.CreateKey(ctx, testUser, "short", []contracts.Scope{contracts.ScopeDecksRead}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		revoked, revokedID := e.key(t, contracts.ScopeDecksRead)
		good, _ := e.key(t, contracts.ScopeDecksRead)
		other := newEnv(t, sqliteURL(t), nil) // another deployment
		foreign, _ := other.key(t, contracts.ScopeDecksRead)

		ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		// The keys work before they expire or are revoked.
		for _, k := range []string{expiring.Secret, revoked, good} {
			if resp, body := e.rpc(t, ping, bearer(k)); resp.StatusCode != http.StatusOK {
				t.Fatalf("a valid key got %d %s", resp.StatusCode, body)
			}
		}
		e.clock.Advance(2 * time.Minute)
		if err := e.app.RevokeKey(ctx, revokedID); err != nil {
			t.Fatal(err)
		}

		cases := map[string]http.Header{
			"expired":          bearer(expiring.Secret),
			"revoked":          bearer(revoked),
			"malformed":        bearer("not-a-key"),
			"malformed prefix": bearer(contracts.APIKeyPrefix + "garbage"),
			"wrong secret":     bearer(good[:len(good)-4] + "AAAA"),
			"foreign":          bearer(foreign),
			"x-api-key":        {"X-Api-Key": {foreign}},
			"basic scheme":     {"Authorization": {"Basic YWRhOnB3"}},
			"none":             {},
		}
		for name, h := range cases {
			t.Run(name, func(t *testing.T) {
				resp, body := e.rpc(t, ping, h)
				checkRefusal(t, e, resp, body, true)
				if sent, flagged := len(h) > 0, strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`); sent != flagged {
					t.Errorf("credential sent: %v, but invalid_token in the challenge: %v", sent, flagged)
				}
				resp, body = e.request(t, http.MethodGet, "/api/decks", nil, h)
				checkRefusal(t, e, resp, body, false)
				if _, err := tryConnect(e.base+"/mcp", h, ""); err == nil {
					t.Error("the SDK client connected")
				}
			})
		}
		if resp, body := e.rpc(t, ping, bearer(good)); resp.StatusCode != http.StatusOK {
			t.Fatalf("the good key got %d %s", resp.StatusCode, body)
		}
	})
}
