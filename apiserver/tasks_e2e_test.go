package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// modernClient speaks the stateless 2026-07-28 era over raw HTTP, with
// the request headers the era requires.
type modernClient struct {
	t        *testing.T
	endpoint string
	key      string
	tasks    bool   // declare the io.modelcontextprotocol/tasks extension
	elicit   bool   // declare the elicitation capability
	scopes   string // the x-mcp-scopes header narrowing the key's grant, when set
	id       int
}

// call posts method with params and returns the HTTP status, the result
// and the JSON-RPC error.
func (c *modernClient) call(method string, params map[string]any) (status int, result, rpcErr map[string]any) {
	c.t.Helper()
	caps := map[string]any{}
	if c.tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	if c.elicit {
		caps["elicitation"] = map[string]any{"form": map[string]any{}}
	}
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}}
	for k, v := range params {
		p[k] = v
	}
	c.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": p})
	req, _ := http.NewRequest(http.MethodPost, c.endpoint, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	chooseAll(req.URL.Path, req.Header)
	if c.scopes != "" {
		req.Header.Set("X-Mcp-Scopes", c.scopes)
	}
	for _, k := range []string{"name", "taskId"} {
		if v, ok := params[k].(string); ok {
			req.Header.Set("Mcp-Name", v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp.StatusCode, out.Result, out.Error
}

func (c *modernClient) mustCall(method string, params map[string]any) map[string]any {
	c.t.Helper()
	status, res, e := c.call(method, params)
	if e != nil || status != http.StatusOK {
		c.t.Fatalf("%s %v: %d %v", method, params, status, e)
	}
	return res
}

// A real tool (import_cards) runs as an MCP task through /mcp: the call
// answers with a task at once, the import runs as a stored job, and
// tasks/get, on this instance or another one on the same database,
// reports it to completion with the tool's result inlined. Another user
// cannot see it; a client without the extension gets the synchronous result.
func TestToolCallAsTaskOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite)
		c := &modernClient{t: t, endpoint: e.base + "/mcp", key: key, tasks: true}

		discover := c.mustCall("server/discover", nil)
		caps, _ := discover["capabilities"].(map[string]any)
		if ext, _ := caps["extensions"].(map[string]any); ext["io.modelcontextprotocol/tasks"] == nil {
			t.Fatalf("server/discover does not advertise the tasks extension: %v", caps)
		}

		deck := c.mustCall("tools/call", map[string]any{"name": contracts.ToolCreateDeck, "arguments": map[string]any{"name": "Tasks"}})
		deckID, _ := deck["structuredContent"].(map[string]any)["id"].(string)
		if deckID == "" {
			t.Fatalf("create_deck = %v", deck)
		}

		created := c.mustCall("tools/call", map[string]any{"name": contracts.ToolImportCards,
			"arguments": map[string]any{"deckId": deckID, "text": "der Hund\tthe dog\ndie Katze\tthe cat\n", "format": "tsv"}})
		taskID, _ := created["taskId"].(string)
		if created["resultType"] != "task" || taskID == "" || created["status"] != "working" || created["content"] != nil {
			t.Fatalf("import_cards as a task = %v", created)
		}
		if got := c.mustCall("tasks/get", map[string]any{"taskId": taskID}); got["taskId"] != taskID {
			t.Fatalf("immediate tasks/get = %v", got)
		}

		var done map[string]any
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			done = c.mustCall("tasks/get", map[string]any{"taskId": taskID})
			if done["status"] != "working" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the task did not finish: %v", done)
			}
		}
		res, _ := done["result"].(map[string]any)
		if done["status"] != "completed" || res == nil || res["isError"] == true {
			t.Fatalf("finished task = %v", done)
		}
		var bulk contracts.BulkResult
		b, _ := json.Marshal(res["structuredContent"])
		if err := json.Unmarshal(b, &bulk); err != nil || bulk.Counts["created"] != 2 || len(bulk.Items) != 2 {
			t.Fatalf("the import's result = %s (%v)", b, err)
		}
		search := c.mustCall("tools/call", map[string]any{"name": contracts.ToolSearchCards, "arguments": map[string]any{"deckId": deckID}})
		if !strings.Contains(string(mustJSON(t, search["structuredContent"])), "der Hund") {
			t.Fatalf("the imported cards are not there: %v", search)
		}

		// Another instance on the same database reports the same task.
		e2 := newEnv(t, dbURL, nil)
		c2 := &modernClient{t: t, endpoint: e2.base + "/mcp", key: key, tasks: true}
		if again := c2.mustCall("tasks/get", map[string]any{"taskId": taskID}); again["status"] != "completed" || again["result"] == nil {
			t.Fatalf("tasks/get on another instance = %v", again)
		}

		// Cancelling a finished task is an empty ack that changes nothing.
		if ack := c.mustCall("tasks/cancel", map[string]any{"taskId": taskID}); ack["resultType"] != "complete" || ack["status"] != nil {
			t.Fatalf("cancel ack = %v", ack)
		}
		if got := c.mustCall("tasks/get", map[string]any{"taskId": taskID}); got["status"] != "completed" {
			t.Fatalf("after cancel = %v", got)
		}

		// Unknown ids, and ids of jobs that are not tasks, are -32602.
		for _, id := range []string{"no-such-task", "01a23058-32e0-7587-8ce3-02a62f1e7922"} {
			if _, _, rpcErr := c.call("tasks/get", map[string]any{"taskId": id}); rpcErr == nil || rpcErr["code"] != float64(-32602) {
				t.Errorf("tasks/get %s = %v", id, rpcErr)
			}
		}
		// Another user's key finds nothing.
		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", ""); err != nil {
			t.Fatal(err)
		}
		bob, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeDecksWrite}, 0)
		if err != nil {
			t.Fatal(err)
		}
		cb := &modernClient{t: t, endpoint: e.base + "/mcp", key: bob.Secret, tasks: true}
		for _, m := range []string{"tasks/get", "tasks/cancel"} {
			if _, _, rpcErr := cb.call(m, map[string]any{"taskId": taskID}); rpcErr == nil || rpcErr["code"] != float64(-32602) {
				t.Errorf("%s of another user's task = %v", m, rpcErr)
			}
		}
		// Without the extension: tasks/get is refused, the call runs at once.
		plain := &modernClient{t: t, endpoint: e.base + "/mcp", key: key}
		if status, _, rpcErr := plain.call("tasks/get", map[string]any{"taskId": taskID}); status != http.StatusBadRequest || rpcErr["code"] != float64(-32021) {
			t.Errorf("tasks/get without the extension = %d %v", status, rpcErr)
		}
		sync := plain.mustCall("tools/call", map[string]any{"name": contracts.ToolImportCards,
			"arguments": map[string]any{"deckId": deckID, "text": "das Pferd\tthe horse\n", "format": "tsv"}})
		if sync["resultType"] != "complete" || sync["taskId"] != nil || sync["structuredContent"] == nil {
			t.Fatalf("import_cards without the extension = %v", sync)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
