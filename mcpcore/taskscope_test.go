package mcpcore

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// refusingTasks is a TaskStore whose one task, "t-mine", needs a:write:
// a caller without it is refused with the -32003 of ScopeError; every
// other id is not found.
type refusingTasks struct{}

func (refusingTasks) lookup(ctx context.Context, id string) error {
	if id != "t-mine" {
		return ErrTaskNotFound
	}
	return RequireScopes(ctx, "a:write")
}

func (r refusingTasks) Create(context.Context, TaskCall) (Task, error) {
	return Task{}, ErrTaskNotFound
}

func (r refusingTasks) Get(ctx context.Context, id string) (Task, error) {
	if err := r.lookup(ctx, id); err != nil {
		return Task{}, err
	}
	return Task{ID: id, Status: TaskWorking}, nil
}

func (r refusingTasks) Update(ctx context.Context, id string, _ map[string]json.RawMessage) error {
	return r.lookup(ctx, id)
}

func (r refusingTasks) Cancel(ctx context.Context, id string) error { return r.lookup(ctx, id) }

// A task store's insufficient-scope refusal answers tasks/get, tasks/update
// and tasks/cancel as a tool outside the grant does: -32003 naming the
// scope, and for an OAuth principal a 403 whose challenge asks for it. An
// unknown id stays -32602 either way, and the granted caller reads the task.
func TestTaskScopeRefusal(t *testing.T) {
	s := newTestServer(t, Options{Tasks: refusingTasks{}}, echoTool())
	base := NewHTTPHandler(s, HTTPOptions{ResourceMetadataURL: "https://x/.well-known/oauth-protected-resource/mcp"})
	body := func(method, id string) string {
		extra := ""
		if method == "tasks/update" {
			extra = `,"inputResponses":{}`
		}
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"taskId":"` + id + `"` + extra +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	}
	key := withPrincipal(base, Principal{UserID: "u1", Scopes: []string{"a:read"}})
	oauth := withPrincipal(base, Principal{UserID: "u1", Scopes: []string{"a:read"}, OAuth: true})
	want := `Bearer error="insufficient_scope", scope="a:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		status, hdr, out := post(t, key, body(m, "t-mine"), modernHeaders(m, "t-mine"))
		r := decode(t, out)
		if status != http.StatusOK || r.Error == nil || r.Error.Code != CodeInsufficientScope || string(r.Error.Data) != `{"requiredScopes":["a:write"]}` ||
			hdr.Get("WWW-Authenticate") != "" {
			t.Errorf("%s without the task's scope (api key): %d %q %s", m, status, hdr.Get("WWW-Authenticate"), out)
		}
		status, hdr, out = post(t, oauth, body(m, "t-mine"), modernHeaders(m, "t-mine"))
		if r := decode(t, out); status != http.StatusForbidden || hdr.Get("WWW-Authenticate") != want || r.Error == nil || r.Error.Code != CodeInsufficientScope {
			t.Errorf("%s without the task's scope (OAuth): %d %q %s", m, status, hdr.Get("WWW-Authenticate"), out)
		}
		status, _, out = post(t, oauth, body(m, "t-other"), modernHeaders(m, "t-other"))
		if r := decode(t, out); status != http.StatusOK || r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("%s of an unknown task: %d %s", m, status, out)
		}
	}
	writer := withPrincipal(base, Principal{UserID: "u1", Scopes: []string{"a:read", "a:write"}})
	status, _, out := post(t, writer, body("tasks/get", "t-mine"), modernHeaders("tasks/get", "t-mine"))
	if r := decode(t, out); status != http.StatusOK || r.Error != nil {
		t.Errorf("tasks/get with the task's scope: %d %s", status, out)
	}
}
