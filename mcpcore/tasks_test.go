package mcpcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/mcpcore"
)

const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskClient speaks the modern era in process, declaring the tasks extension.
type taskClient struct {
	t   *testing.T
	srv *mcpcore.Server
	ctx context.Context
	id  int
}

func newTaskClient(t *testing.T) *taskClient {
	return &taskClient{t: t, srv: newFixture(t), ctx: context.Background()}
}

// call sends method with params (a JSON object body without braces) and
// returns the result or the error object.
func (c *taskClient) call(method, params string) (result, rpcErr map[string]any) {
	c.t.Helper()
	c.id++
	if params != "" {
		params += ","
	}
	body := `{"jsonrpc":"2.0","id":` + itoa(c.id) + `,"method":"` + method + `","params":{` + params + tasksMeta + `}}`
	var resp struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(c.srv.Handle(c.ctx, []byte(body)), &resp); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp.Result, resp.Error
}

func (c *taskClient) mustCall(method, params string) map[string]any {
	c.t.Helper()
	res, e := c.call(method, params)
	if e != nil {
		c.t.Fatalf("%s %s: error %v", method, params, e)
	}
	return res
}

func (c *taskClient) create(tool, args string) string {
	c.t.Helper()
	res := c.mustCall("tools/call", `"name":"`+tool+`","arguments":`+args)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || id == "" {
		c.t.Fatalf("%s did not create a task: %v", tool, res)
	}
	return id
}

func (c *taskClient) get(id string) map[string]any {
	c.t.Helper()
	return c.mustCall("tasks/get", `"taskId":"`+id+`"`)
}

// waitFor polls tasks/get until the status is want or terminal.
func (c *taskClient) waitFor(id, want string) map[string]any {
	c.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := c.get(id)
		st := got["status"]
		if st == want || st == "completed" || st == "failed" || st == "cancelled" {
			if st != want {
				c.t.Fatalf("task %s ended %v, want %s: %v", id, st, want, got)
			}
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %v", id, st)
		}
	}
}

func resultText(t *testing.T, task map[string]any) string {
	t.Helper()
	res, _ := task["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no result content: %v", task)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

var taskIDShape = regexp.MustCompile(`^[0-9a-f]{32}$`)

// A task-supporting call answers with a flat CreateTaskResult that
// tasks/get resolves at once; the completed task inlines the tool result;
// cancelling it then is an idempotent ack that changes nothing.
func TestTaskLifecycle(t *testing.T) {
	c := newTaskClient(t)
	res := c.mustCall("tools/call", `"name":"slow_compute","arguments":{"seconds":0.2,"label":"life"}`)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || !taskIDShape.MatchString(id) || res["status"] != "working" {
		t.Fatalf("CreateTaskResult = %v", res)
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval", "content"} {
		if _, ok := res[k]; ok {
			t.Errorf("CreateTaskResult carries %q: %v", k, res)
		}
	}
	if ttl, _ := res["ttlMs"].(float64); ttl != float64(time.Hour.Milliseconds()) {
		t.Errorf("ttlMs = %v", res["ttlMs"])
	}
	if poll, _ := res["pollIntervalMs"].(float64); poll != 500 {
		t.Errorf("pollIntervalMs = %v", res["pollIntervalMs"])
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if s, _ := res[k].(string); !strings.HasPrefix(s, time.Now().UTC().Format("2006-01-02T")) {
			t.Errorf("%s = %v", k, res[k])
		}
	}
	if got := c.get(id); got["taskId"] != id || got["status"] != "working" || got["resultType"] != "complete" || got["result"] != nil {
		t.Fatalf("immediate tasks/get = %v", got)
	}
	done := c.waitFor(id, "completed")
	if text := resultText(t, done); text != "Computed life after the wait" {
		t.Errorf("result text = %q", text)
	}
	ack := c.mustCall("tasks/cancel", `"taskId":"`+id+`"`)
	if len(ack) != 2 || ack["resultType"] != "complete" || ack["_meta"] == nil {
		t.Errorf("cancel ack of a finished task = %v", ack)
	}
	if got := c.get(id); got["status"] != "completed" {
		t.Errorf("a cancel after completion changed the task: %v", got)
	}
}

// tasks/cancel stops a running task: it reads cancelled at once, has no
// result, and stays cancelled.
func TestTaskCancelRunning(t *testing.T) {
	c := newTaskClient(t)
	id := c.create("slow_compute", `{"seconds":60}`)
	if ack := c.mustCall("tasks/cancel", `"taskId":"`+id+`"`); ack["resultType"] != "complete" || ack["status"] != nil {
		t.Fatalf("cancel ack = %v", ack)
	}
	got := c.get(id)
	if got["status"] != "cancelled" || got["result"] != nil || got["error"] != nil {
		t.Fatalf("cancelled task = %v", got)
	}
	time.Sleep(50 * time.Millisecond)
	if got := c.get(id); got["status"] != "cancelled" {
		t.Fatalf("cancelled task moved on: %v", got)
	}
}

// A tool error is a completed task with an isError result; a protocol
// error is a failed task with the JSON-RPC error and no result.
func TestTaskErrors(t *testing.T) {
	c := newTaskClient(t)
	done := c.waitFor(c.create("failing_job", `{}`), "completed")
	if r, _ := done["result"].(map[string]any); r["isError"] != true || resultText(t, done) != "the job failed on purpose" {
		t.Errorf("tool error task = %v", done)
	}
	failed := c.waitFor(c.create("protocol_error_job", `{}`), "failed")
	e, _ := failed["error"].(map[string]any)
	if e["code"] != float64(mcpcore.CodeInternalError) || e["message"] != "the job hit an internal fault on purpose" || failed["result"] != nil {
		t.Errorf("protocol error task = %v", failed)
	}
	if failed["statusMessage"] != "the job hit an internal fault on purpose" {
		t.Errorf("statusMessage = %v", failed["statusMessage"])
	}
}

// A task waiting for two answers stays input_required until both are in,
// showing only the unanswered key; unknown keys are ignored.
func TestTaskInputRequiredPartialUpdate(t *testing.T) {
	c := newTaskClient(t)
	id := c.create("multi_input", `{}`)
	got := c.waitFor(id, "input_required")
	reqs, _ := got["inputRequests"].(map[string]any)
	if len(reqs) != 2 || reqs["first"] == nil || reqs["second"] == nil {
		t.Fatalf("inputRequests = %v", got)
	}
	if q, _ := reqs["first"].(map[string]any); q["method"] != "elicitation/create" {
		t.Fatalf("input request = %v", q)
	}
	ack := c.mustCall("tasks/update", `"taskId":"`+id+`","inputResponses":{"first":{"action":"accept","content":{"name":"Ada"}},"never-asked":{"x":1}}`)
	if ack["resultType"] != "complete" || ack["taskId"] != nil {
		t.Fatalf("update ack = %v", ack)
	}
	got = c.get(id)
	reqs, _ = got["inputRequests"].(map[string]any)
	if got["status"] != "input_required" || len(reqs) != 1 || reqs["second"] == nil {
		t.Fatalf("after a partial update: %v", got)
	}
	c.mustCall("tasks/update", `"taskId":"`+id+`","inputResponses":{"second":{"action":"accept","content":{"name":"Grace"}}}`)
	if text := resultText(t, c.waitFor(id, "completed")); text != "Got Ada and Grace" {
		t.Errorf("result = %q", text)
	}
	// A late answer to a finished task is acknowledged and ignored.
	if ack := c.mustCall("tasks/update", `"taskId":"`+id+`","inputResponses":{"second":{"action":"decline"}}`); ack["resultType"] != "complete" {
		t.Errorf("late update = %v", ack)
	}
}

// A required-task tool gathers input the MRTR way first (no task yet),
// then answers the retry with a task whose result uses that input.
func TestTaskAfterMRTR(t *testing.T) {
	c := newTaskClient(t)
	first := c.mustCall("tools/call", `"name":"test_tool_with_task","arguments":{}`)
	state, _ := first["requestState"].(string)
	if first["resultType"] != "input_required" || first["taskId"] != nil || state == "" {
		t.Fatalf("round 1 = %v", first)
	}
	second := c.mustCall("tools/call", `"name":"test_tool_with_task","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+state+`"`)
	id, _ := second["taskId"].(string)
	if second["resultType"] != "task" || id == "" || second["requestState"] != nil || second["inputRequests"] != nil {
		t.Fatalf("round 2 = %v", second)
	}
	if text := resultText(t, c.waitFor(id, "completed")); text != "Hello, Alice, from a task!" {
		t.Errorf("result = %q", text)
	}
}

// A task belongs to the user who created it: another user's tasks/get,
// tasks/update and tasks/cancel find nothing, and the task runs on.
func TestTaskOwnerIsolation(t *testing.T) {
	c := newTaskClient(t)
	c.ctx = mcpcore.WithPrincipal(context.Background(), mcpcore.Principal{UserID: "ada"})
	id := c.create("slow_compute", `{"seconds":60}`)
	other := &taskClient{t: t, srv: c.srv, ctx: mcpcore.WithPrincipal(context.Background(), mcpcore.Principal{UserID: "eve"})}
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if _, e := other.call(m, `"taskId":"`+id+`"`); e == nil || e["code"] != float64(mcpcore.CodeInvalidParams) {
			t.Errorf("%s by another user = %v", m, e)
		}
	}
	if _, e := other.call("tasks/update", `"taskId":"`+id+`","inputResponses":{}`); e == nil || e["code"] != float64(mcpcore.CodeInvalidParams) {
		t.Errorf("tasks/update by another user = %v", e)
	}
	if got := c.get(id); got["status"] != "working" {
		t.Errorf("owner's task = %v", got)
	}
	c.mustCall("tasks/cancel", `"taskId":"`+id+`"`)
}

// Tasks expire after their TTL: not found afterwards, and the run stops.
func TestMemoryTaskStoreTTL(t *testing.T) {
	store := mcpcore.NewMemoryTaskStore(80*time.Millisecond, 10*time.Millisecond)
	stopped := make(chan struct{})
	call := mcpcore.TaskCall{Tool: "x", Run: func(ctx context.Context, _ map[string]json.RawMessage, _ []byte) mcpcore.TaskOutcome {
		<-ctx.Done()
		close(stopped)
		return mcpcore.TaskOutcome{Status: mcpcore.TaskCancelled}
	}}
	ctx := context.Background()
	task, err := store.Create(ctx, call)
	if err != nil || task.TTL != 80*time.Millisecond || task.PollInterval != 10*time.Millisecond {
		t.Fatalf("Create = %+v, %v", task, err)
	}
	if got, err := store.Get(ctx, task.ID); err != nil || got.Status != mcpcore.TaskWorking {
		t.Fatalf("Get before the TTL = %+v, %v", got, err)
	}
	time.Sleep(120 * time.Millisecond)
	if _, err := store.Get(ctx, task.ID); !errors.Is(err, mcpcore.ErrTaskNotFound) {
		t.Fatalf("Get after the TTL: %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("an expired task kept running")
	}
	if err := store.Cancel(ctx, "nope"); !errors.Is(err, mcpcore.ErrTaskNotFound) {
		t.Errorf("Cancel unknown: %v", err)
	}
	if err := store.Update(ctx, "nope", nil); !errors.Is(err, mcpcore.ErrTaskNotFound) {
		t.Errorf("Update unknown: %v", err)
	}
}

// Invalid x-mcp-header annotations fail NewServer.
func TestHeaderParamDefinitions(t *testing.T) {
	h := func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) { return nil, nil }
	for name, schema := range map[string]string{
		"number type":  `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`,
		"object type":  `{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"O"}}}`,
		"empty":        `{"type":"object","properties":{"s":{"type":"string","x-mcp-header":""}}}`,
		"not a token":  `{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"A B"}}}`,
		"duplicate":    `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`,
		"under items":  `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"under anyOf":  `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"not a string": `{"type":"object","properties":{"s":{"type":"string","x-mcp-header":7}}}`,
	} {
		_, err := mcpcore.NewServer(mcpcore.Implementation{Name: "t", Version: "1"}, mcpcore.Options{},
			mcpcore.Catalog{Tools: []mcpcore.Tool{{Name: "t", InputSchema: json.RawMessage(schema), Handler: h}}})
		if err == nil || !strings.Contains(err.Error(), "x-mcp-header") {
			t.Errorf("%s: NewServer error = %v", name, err)
		}
	}
	_, err := mcpcore.NewServer(mcpcore.Implementation{Name: "t", Version: "1"}, mcpcore.Options{},
		mcpcore.Catalog{Tools: []mcpcore.Tool{{Name: "t", Handler: h,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"where":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}}`)}}})
	if err != nil {
		t.Errorf("a nested properties chain is allowed: %v", err)
	}
}
