package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/takhtabush/takhtabush/mcpcore"
)

// taskTools are the fixtures of the suite's tasks scenarios (SEP-2663):
// greet runs synchronously; the others run as tasks for a client that
// declared the tasks extension.
func taskTools() []mcpcore.Tool {
	confirmSchema := map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []string{"confirm"}}
	nameSchema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
	return []mcpcore.Tool{
		{Name: "greet", Description: "Greets someone (always synchronous)",
			InputSchema: schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct{ Name string }
				_ = json.Unmarshal(req.Arguments, &a)
				return mcpcore.TextResult("Hello, " + a.Name + "!"), nil
			}},
		{Name: "slow_compute", Description: "Sleeps for the given seconds, then answers (a task when the client allows)",
			InputSchema: schema(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}},"required":["seconds"]}`),
			TaskSupport: mcpcore.TaskOptional,
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct {
					Seconds float64
					Label   string
				}
				_ = json.Unmarshal(req.Arguments, &a)
				t := time.NewTimer(time.Duration(a.Seconds * float64(time.Second)))
				defer t.Stop()
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-t.C:
				}
				return mcpcore.TextResult("Computed " + a.Label + " after the wait"), nil
			}},
		{Name: "failing_job", Description: "A task that ends in a tool error (task support required)", InputSchema: schema(noArgs),
			TaskSupport: mcpcore.TaskRequired,
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Second):
				}
				return nil, errors.New("the job failed on purpose")
			}},
		{Name: "protocol_error_job", Description: "A task that ends in a protocol error", InputSchema: schema(noArgs),
			TaskSupport: mcpcore.TaskOptional,
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return nil, mcpcore.NewError(mcpcore.CodeInternalError, "the job hit an internal fault on purpose", nil)
			}},
		{Name: "confirm_delete", Description: "Asks the user to confirm, then deletes (a task)",
			InputSchema: schema(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`),
			TaskSupport: mcpcore.TaskOptional,
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct{ Filename string }
				_ = json.Unmarshal(req.Arguments, &a)
				res, err := req.Elicit(ctx, "confirm", mcpcore.ElicitParams{Message: "Delete " + a.Filename + "?", RequestedSchema: confirmSchema})
				if err != nil {
					return nil, err
				}
				if res.Action != "accept" {
					return mcpcore.TextResult("Kept " + a.Filename), nil
				}
				return mcpcore.TextResult("Deleted " + a.Filename), nil
			}},
		{Name: "multi_input", Description: "Asks two questions at once (a task)", InputSchema: schema(noArgs),
			TaskSupport: mcpcore.TaskOptional,
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				q := mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema})
				res, err := req.Ask(ctx, map[string]mcpcore.InputRequest{"first": q, "second": q}, nil)
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult("Got " + elicitedName(res["first"]) + " and " + elicitedName(res["second"])), nil
			}},
		{Name: "test_tool_with_task", Description: "Asks for a name (MRTR), then greets in a task", InputSchema: schema(noArgs),
			TaskSupport: mcpcore.TaskRequired,
			Prepare: func(ctx context.Context, req *mcpcore.CallRequest) error {
				_, err := req.Elicit(ctx, "user_name", mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
				return err
			},
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Elicit(ctx, "user_name", mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
				if err != nil {
					return nil, err
				}
				name, _ := res.Content["name"].(string)
				return mcpcore.TextResult("Hello, " + name + ", from a task!"), nil
			}},
		{Name: "test_custom_header", Description: "Echoes a region mirrored into the Mcp-Param-Region header",
			InputSchema: schema(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"limit":{"type":"integer","x-mcp-header":"Limit"},"verbose":{"type":"boolean","x-mcp-header":"Verbose"}},"required":["region"]}`),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct{ Region string }
				_ = json.Unmarshal(req.Arguments, &a)
				return mcpcore.TextResult("Region: " + a.Region), nil
			}},
	}
}

func elicitedName(raw json.RawMessage) string {
	var r mcpcore.ElicitResult
	_ = json.Unmarshal(raw, &r)
	name, _ := r.Content["name"].(string)
	return name
}
