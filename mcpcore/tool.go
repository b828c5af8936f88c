package mcpcore

import (
	"context"
	"encoding/json"
	"time"
)

// Tool defines one tool. InputSchema and OutputSchema are served verbatim in
// tools/list and compiled once (JSON Schema 2020-12 by default) for
// validation.
type Tool struct {
	Name        string // [A-Za-z0-9_.-], at most 64 characters, unique
	Title       string
	Description string
	// InputSchema is a JSON Schema whose root has "type":"object". Nil means
	// the tool takes no arguments: {"type":"object","additionalProperties":false}.
	InputSchema json.RawMessage
	// ArgsSchema, when set, validates the arguments in place of
	// InputSchema, which is then only served: a complete schema (length
	// bounds, say) behind a listed one that spends fewer of the model's
	// tokens. Its root must also be an object schema.
	ArgsSchema json.RawMessage
	// OutputSchema, when set, describes structuredContent.
	OutputSchema json.RawMessage
	Annotations  *ToolAnnotations
	// Meta is served as the tool's _meta, e.g. {"ui":{"resourceUri":"ui://app/view"}};
	// a ui:// resourceUri must name a registered Resource.
	Meta map[string]any
	// Sets are the toolsets (Options.Toolsets) the tool belongs to; none
	// puts it in every set.
	Sets []string
	// Scopes must ALL be granted for the tool to be listed or called.
	Scopes []string
	// AnyScopes, when set, must be granted at least ONE of (besides all
	// of Scopes) for the tool to be listed or called: a tool whose
	// handler then decides, per call, which one it needs.
	AnyScopes []string
	// Timeout bounds one call; 0 uses Options.DefaultTimeout.
	Timeout time.Duration
	// NeedsApproval, when it returns true, gates the call behind Options.Approve.
	// A call nobody can approve is denied and never runs.
	NeedsApproval func(ctx context.Context, args json.RawMessage) bool
	// Handler runs the tool.
	Handler ToolHandler
	// TaskSupport lets calls run as tasks (the tasks extension of the
	// 2026-07-28 era; needs Options.Tasks).
	TaskSupport TaskSupport
	// Prepare, for a task tool, runs synchronously before its task is
	// created: it may refuse the call or ask for input the MRTR way
	// (*InputRequiredError); the answers it gathered reach Handler, in
	// the task, as InputResponses.
	Prepare func(ctx context.Context, req *CallRequest) error
	// TaskFromResult is for a task tool whose call itself starts the long
	// work and names it in its result (a stored job, say): a task call
	// then runs synchronously, and when its result is not an error and
	// TaskFromResult finds a task id in it, the call answers with that
	// task as Options.Tasks reports it instead of creating one. Any other
	// result answers the call as it is.
	TaskFromResult func(res *CallToolResult) (taskID string, ok bool)
}

// ToolAnnotations are the behavioural hints of a tool. Unset pointers take
// the protocol defaults (readOnly: false, destructive: true, openWorld:
// true); directories ask for readOnly and destructive to be explicit.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolHandler executes a tool call. A returned *Error (see errors.As)
// becomes a JSON-RPC error; *InputRequiredError asks the client for input
// (modern era); any other error becomes an isError result carrying its
// message.
type ToolHandler func(ctx context.Context, req *CallRequest) (*CallToolResult, error)

// CallRequest is one tools/call as seen by a handler.
type CallRequest struct {
	Request
	// Name is the tool name.
	Name string
	// Arguments are the validated (and possibly guardrail-rewritten)
	// arguments: always a JSON object.
	Arguments json.RawMessage
	// Tool is the definition being called.
	Tool *Tool

	inflight inflightCall // registration for notifications/cancelled
	task     bool         // a task's run: no call timeout
}

// CallToolResult is the result of a tool call.
type CallToolResult struct {
	Content []Content
	// StructuredContent is any JSON value; a json.RawMessage is served
	// verbatim. Use StructuredResult to fill it and a matching text block
	// from one encoding.
	StructuredContent any
	IsError           bool
	Meta              map[string]any
}

// TextResult returns a result with one text block.
func TextResult(text string) *CallToolResult { return oneBlock(TextContent(text), false) }

// ErrorResult returns an isError result with one text block, for failures
// the model should see and act on.
func ErrorResult(text string) *CallToolResult { return oneBlock(TextContent(text), true) }

// resultOfOne is a result and its only content block, allocated together.
type resultOfOne struct {
	res   CallToolResult
	block [1]Content
}

func oneBlock(c Content, isError bool) *CallToolResult {
	r := &resultOfOne{block: [1]Content{c}}
	r.res.Content, r.res.IsError = r.block[:], isError
	return &r.res
}

// StructuredResult encodes v once and returns a result carrying it both as
// structuredContent and as the backward-compatible JSON text block.
func StructuredResult(v any) (*CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &CallToolResult{
		Content:           []Content{TextContent(string(b))},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// EncodeResult returns the CallToolResult object as JSON, _meta included:
// what a TaskStore keeps as a completed task's result.
func EncodeResult(r *CallToolResult) (json.RawMessage, error) {
	b, err := r.appendJSON(nil)
	if err == nil {
		b, err = appendMeta(b, r.Meta)
	}
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendJSON appends the result fields (without the closing brace).
func (r *CallToolResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"content":[`...)
	var err error
	for i := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = r.Content[i].appendJSON(b); err != nil {
			return b, err
		}
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		if b, err = appendJSON(b, r.StructuredContent); err != nil {
			return b, err
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return b, nil
}

// Guardrail inspects tool calls around execution. Rewrites chain in order;
// the first block stops the call; an error fails it.
type Guardrail struct {
	Name string
	// OnCall runs after argument validation, before approval.
	OnCall func(ctx context.Context, tool *Tool, args json.RawMessage) (GuardVerdict, error)
	// OnResult runs on results the handler produced; it may replace them.
	OnResult func(ctx context.Context, tool *Tool, args json.RawMessage, res *CallToolResult) (*CallToolResult, error)
}

// GuardVerdict is a guardrail's decision on a call.
type GuardVerdict struct {
	Block  bool
	Reason string
	// Args, when non-nil, replaces the arguments (re-validated).
	Args json.RawMessage
}
