package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// TasksExtension is the identifier of the tasks extension (SEP-2663) of
// the 2026-07-28 era: a tools/call may answer with a task handle that the
// client polls with tasks/get, feeds with tasks/update and stops with
// tasks/cancel.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool's calls may run as tasks. The engine
// creates a task only for a modern request whose clientCapabilities
// declare TasksExtension, and only when Options.Tasks is set.
type TaskSupport string

// The task support levels of a tool.
const (
	// TaskForbidden (the zero value): calls always run synchronously.
	TaskForbidden TaskSupport = ""
	// TaskOptional: a task when the client declared the extension,
	// otherwise a synchronous call.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: only as a task; a client without the extension gets
	// -32021 (missing required client capability).
	TaskRequired TaskSupport = "required"
)

// TaskStatus is where a task is in its life.
type TaskStatus string

// The task statuses; completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the status is final.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is a task as its store reports it.
type Task struct {
	ID            string
	Status        TaskStatus
	StatusMessage string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// TTL is how long after CreatedAt the task stays retrievable; 0 means
	// unlimited (ttlMs null).
	TTL time.Duration
	// PollInterval is the suggested polling interval (0: none suggested).
	PollInterval time.Duration
	// InputRequests are the outstanding requests of an input_required task.
	InputRequests map[string]InputRequest
	// Result is the CallToolResult object of a completed task (an
	// isError result is still completed).
	Result json.RawMessage
	// Error is the JSON-RPC error of a failed task.
	Error *Error
}

// TaskCall is a tools/call the engine hands to a TaskStore to run as a task.
type TaskCall struct {
	// Tool and Arguments are the call (arguments already validated).
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// ClientCapabilities are the capabilities the creating request
	// declared; input requests of the task are checked against them.
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	// Inputs are the answers gathered before the task was created (by
	// Tool.Prepare); the first run sees them as InputResponses.
	Inputs map[string]json.RawMessage `json:"inputs,omitempty"`
	// Run is this server's RunTask bound to the call, for stores that run
	// tasks in this process; a store that runs them elsewhere keeps the
	// fields above and calls RunTask there.
	Run func(ctx context.Context, inputs map[string]json.RawMessage, state []byte) TaskOutcome `json:"-"`
}

// TaskOutcome is how one run of a task's call ended.
type TaskOutcome struct {
	// Status is completed, failed, input_required or cancelled.
	Status TaskStatus
	// Result is the CallToolResult object (completed).
	Result json.RawMessage
	// Error is the JSON-RPC error (failed).
	Error *Error
	// InputRequests are what the call asks the client for (input_required);
	// run again with the answers added to the inputs and State passed back.
	InputRequests map[string]InputRequest
	State         []byte
}

// TaskStore keeps tasks and has their calls run. Every method acts for
// the caller in ctx: a store keys tasks by their creator and never shows
// one caller's task to another (that is ErrTaskNotFound).
type TaskStore interface {
	// Create durably creates a working task for call and arranges for it
	// to run with Server.RunTask (now or on another instance), returning it
	// once a Get of its id from any instance finds it. An error fails the
	// tools/call: a *Error as it is, anything else as an internal error.
	Create(ctx context.Context, call TaskCall) (Task, error)
	// Get returns the caller's task. ErrTaskNotFound when there is none
	// by that id (never created, another caller's, or expired). A *Error
	// answers as it is: ScopeError when the caller's grant does not
	// cover its own task, which the transport turns into -32003 (a 403
	// challenge for OAuth) as for a tool outside the grant.
	Get(ctx context.Context, id string) (Task, error)
	// Update gives an input_required task answers keyed as its
	// InputRequests; keys not outstanding are ignored, and once none is
	// outstanding the call runs again with every answer so far. A task in
	// another status ignores it. ErrTaskNotFound as Get.
	Update(ctx context.Context, id string, responses map[string]json.RawMessage) error
	// Cancel asks the task to stop and marks it cancelled; a terminal task
	// is left as it is (cancel is idempotent). ErrTaskNotFound as Get.
	Cancel(ctx context.Context, id string) error
}

// ErrTaskNotFound is a TaskStore's answer for an unknown task id.
var ErrTaskNotFound = errors.New("mcpcore: task not found")

// RunTask runs one execution of a task's call: the tool's handler, with
// inputs as its InputResponses and state as its State, in ctx (which
// carries the task creator's principal and ends when the task is
// cancelled). Stores call it when a task starts and again after
// input_required once the answers are in. It never applies the tool's
// call timeout: a task's bound is its store's.
func (s *Server) RunTask(ctx context.Context, call TaskCall, inputs map[string]json.RawMessage, state []byte) TaskOutcome {
	te := s.toolIdx[call.Tool]
	if te == nil {
		return TaskOutcome{Status: TaskFailed, Error: unknownTool(call.Tool)}
	}
	cr := &CallRequest{Name: te.def.Name, Tool: &te.def, task: true}
	cr.Request = Request{
		srv: s, method: "tools/call", modern: true, version: VersionModern, logLevel: -1,
		clientCaps: call.ClientCapabilities, inputs: inputs, state: state,
	}
	if cr.inputs == nil {
		cr.inputs = map[string]json.RawMessage{}
	}
	args := call.Arguments
	if len(args) == 0 {
		args = emptyObject
	}
	res, err := s.runTool(ctx, te, cr, args)
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return TaskOutcome{Status: TaskCancelled}
	}
	if err != nil {
		var ir *InputRequiredError
		var pe *Error
		switch {
		case errors.As(err, &ir):
			return TaskOutcome{Status: TaskInputRequired, InputRequests: ir.Requests, State: ir.State}
		case errors.As(err, &pe) && pe != errNoReply:
			return TaskOutcome{Status: TaskFailed, Error: pe}
		}
		ref := NewRef()
		s.logger.Error("mcpcore: task failed", "tool", te.def.Name, "ref", ref, "err", err)
		return TaskOutcome{Status: TaskFailed, Error: &Error{Code: CodeInternalError, Message: "Internal error (ref " + ref + ")"}}
	}
	b, err := EncodeResult(res)
	if err != nil {
		return TaskOutcome{Status: TaskFailed, Error: &Error{Code: CodeInternalError, Message: "the tool's result could not be encoded"}}
	}
	return TaskOutcome{Status: TaskCompleted, Result: b}
}

// declaresTasks reports whether client capabilities declare the tasks extension.
func declaresTasks(caps []byte) bool {
	it, ok := newObjIter(caps)
	if !ok {
		return false
	}
	for {
		k, v, ok := it.next()
		if !ok {
			return false
		}
		if !keyIs(k, "extensions") {
			continue
		}
		ei, ok := newObjIter(v)
		if !ok {
			return false
		}
		for {
			k, v, ok := ei.next()
			if !ok {
				return false
			}
			if keyIs(k, TasksExtension) {
				return !isNull(v)
			}
		}
	}
}

// errTasksUndeclared is -32021 naming the tasks extension.
func errTasksUndeclared() *Error {
	return errWithStatus(CodeMissingRequiredCapability, 400, "Missing required client capability: the "+TasksExtension+" extension",
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
}

// appendTask writes the Task fields of a task object (no braces).
func appendTask(b []byte, t *Task) ([]byte, error) {
	b = append(b, `"taskId":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(t.Status))
	b = appendOpt(b, "statusMessage", t.StatusMessage)
	b = append(b, `,"createdAt":`...)
	b = appendString(b, t.CreatedAt.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"lastUpdatedAt":`...)
	b = appendString(b, t.UpdatedAt.UTC().Format(time.RFC3339Nano))
	if t.TTL > 0 {
		b = appendInt(b, "ttlMs", max(t.TTL.Milliseconds(), 1))
	} else {
		b = append(b, `,"ttlMs":null`...)
	}
	if t.PollInterval > 0 {
		b = appendInt(b, "pollIntervalMs", max(t.PollInterval.Milliseconds(), 1))
	}
	return b, nil
}

// appendTaskDetails writes what a DetailedTask adds for its status.
func appendTaskDetails(b []byte, t *Task) ([]byte, error) {
	var err error
	switch t.Status {
	case TaskInputRequired:
		b = append(b, `,"inputRequests":`...)
		b, err = appendInputRequests(b, t.InputRequests)
	case TaskCompleted:
		b = append(b, `,"result":`...)
		if len(t.Result) == 0 {
			b = append(b, `{"content":[]}`...)
		} else {
			b = append(b, compact(t.Result)...)
		}
	case TaskFailed:
		e := t.Error
		if e == nil {
			e = &Error{Code: CodeInternalError, Message: defaultInternalErrorMessageText}
		}
		b = append(b, `,"error":{"code":`...)
		b = append(b, itoa(e.Code)...)
		b = append(b, `,"message":`...)
		b = appendString(b, e.Message)
		if e.Data != nil {
			b = append(b, `,"data":`...)
			if b, err = appendJSON(b, e.Data); err != nil {
				return b, err
			}
		}
		b = append(b, '}')
	}
	return b, err
}

// appendInputRequests writes a map of input requests, keys sorted.
func appendInputRequests(b []byte, reqs map[string]InputRequest) ([]byte, error) {
	b = append(b, '{')
	for i, k := range sortedKeys(reqs) {
		if i > 0 {
			b = append(b, ',')
		}
		q := reqs[k]
		b = appendString(b, k)
		b = append(b, `:{"method":`...)
		b = appendString(b, q.Method)
		b = append(b, `,"params":`...)
		var err error
		if b, err = appendJSON(b, q.Params); err != nil {
			return b, err
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}
