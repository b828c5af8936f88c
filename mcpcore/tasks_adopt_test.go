package mcpcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/mcpcore"
)

// startJobTool is a tool whose call starts its own long work in the task
// store (as import_package submits a stored job) and names it in its
// result; TaskFromResult lets a task call answer with that task.
func startJobTool(store *mcpcore.MemoryTaskStore) mcpcore.Tool {
	return mcpcore.Tool{
		Name:        "start_job",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`),
		TaskSupport: mcpcore.TaskOptional,
		Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
			var in struct{ Label string }
			if err := json.Unmarshal(req.Arguments, &in); err != nil {
				return nil, err
			}
			if in.Label == "refuse" {
				return nil, errors.New("the upload was never sent; PUT it first")
			}
			t, err := store.Create(ctx, mcpcore.TaskCall{Tool: "start_job", Run: func(ctx context.Context, _ map[string]json.RawMessage, _ []byte) mcpcore.TaskOutcome {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
					return mcpcore.TaskOutcome{Status: mcpcore.TaskCancelled}
				}
				res, err := mcpcore.EncodeResult(mcpcore.TextResult("imported " + in.Label))
				if err != nil {
					return mcpcore.TaskOutcome{Status: mcpcore.TaskFailed, Error: mcpcore.NewError(mcpcore.CodeInternalError, err.Error(), nil)}
				}
				return mcpcore.TaskOutcome{Status: mcpcore.TaskCompleted, Result: res}
			}})
			if err != nil {
				return nil, err
			}
			return mcpcore.StructuredResult(map[string]string{"jobId": t.ID, "status": "queued"})
		},
		TaskFromResult: func(res *mcpcore.CallToolResult) (string, bool) {
			raw, _ := res.StructuredContent.(json.RawMessage)
			var job struct{ JobID string }
			if json.Unmarshal(raw, &job) != nil || job.JobID == "" {
				return "", false
			}
			return job.JobID, true
		},
	}
}

func newAdoptServer(t *testing.T) *mcpcore.Server {
	t.Helper()
	store := mcpcore.NewMemoryTaskStore(time.Hour, 500*time.Millisecond)
	srv, err := mcpcore.NewServer(mcpcore.Implementation{Name: "adopt", Version: "1"}, mcpcore.Options{Tasks: store},
		mcpcore.Catalog{Tools: []mcpcore.Tool{startJobTool(store)}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// A task call of a tool that starts its own job answers with that job's
// task (no second task wraps it), which runs to its own result; a refused
// call is answered at once with its isError result; a client without the
// extension gets the plain result naming the job.
func TestTaskFromResult(t *testing.T) {
	c := &taskClient{t: t, srv: newAdoptServer(t), ctx: context.Background()}
	res := c.mustCall("tools/call", `"name":"start_job","arguments":{"label":"deck"}`)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || !taskIDShape.MatchString(id) || res["status"] != "working" {
		t.Fatalf("CreateTaskResult = %v", res)
	}
	if text := resultText(t, c.waitFor(id, "completed")); text != "imported deck" {
		t.Errorf("the adopted task's result = %q, want the job's own", text)
	}

	refused := c.mustCall("tools/call", `"name":"start_job","arguments":{"label":"refuse"}`)
	if refused["resultType"] != "complete" || refused["isError"] != true || refused["taskId"] != nil {
		t.Fatalf("a refused call = %v", refused)
	}
	if text, _ := refused["content"].([]any)[0].(map[string]any)["text"].(string); text != "the upload was never sent; PUT it first" {
		t.Errorf("refusal text = %q", text)
	}

	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"start_job","arguments":{"label":"plain"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	var plain struct {
		Result struct {
			ResultType        string            `json:"resultType"`
			StructuredContent map[string]string `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.srv.Handle(context.Background(), []byte(body)), &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Result.ResultType != "complete" || !taskIDShape.MatchString(plain.Result.StructuredContent["jobId"]) {
		t.Errorf("call without the tasks extension = %+v", plain.Result)
	}
}

// TaskFromResult is only for optional task tools without Prepare.
func TestTaskFromResultNeedsOptional(t *testing.T) {
	store := mcpcore.NewMemoryTaskStore(time.Hour, time.Second)
	for _, mod := range []func(*mcpcore.Tool){
		func(tl *mcpcore.Tool) { tl.TaskSupport = mcpcore.TaskRequired },
		func(tl *mcpcore.Tool) { tl.TaskSupport = mcpcore.TaskForbidden },
		func(tl *mcpcore.Tool) { tl.Prepare = func(context.Context, *mcpcore.CallRequest) error { return nil } },
	} {
		tl := startJobTool(store)
		mod(&tl)
		if _, err := mcpcore.NewServer(mcpcore.Implementation{Name: "x", Version: "1"}, mcpcore.Options{Tasks: store}, mcpcore.Catalog{Tools: []mcpcore.Tool{tl}}); err == nil {
			t.Errorf("tool %+v was accepted", tl.TaskSupport)
		}
	}
}
