package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
)

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// taskMethods are the tasks extension's methods (modern era, Options.Tasks
// set). tasks/result and tasks/list do not exist in this version of the
// extension, so they stay unknown (-32601).
var taskMethods = map[string]methodFunc{
	"tasks/get":    (*exchange).tasksGet,
	"tasks/update": (*exchange).tasksUpdate,
	"tasks/cancel": (*exchange).tasksCancel,
}

// taskID checks the caller declared the extension and returns params.taskId.
func (x *exchange) taskID() (string, error) {
	if !declaresTasks(x.p.metaClientCaps) {
		return "", errTasksUndeclared()
	}
	id, ok := jsonString(x.p.taskID)
	if !ok || id == "" {
		return "", InvalidParams("Invalid params: taskId must be a non-empty string")
	}
	return id, nil
}

// taskError maps a store error: an unknown task is -32602.
func taskError(err error) error {
	if errors.Is(err, ErrTaskNotFound) {
		return InvalidParams("Failed to retrieve task: Task not found")
	}
	return err
}

func (x *exchange) tasksGet(ctx context.Context, b []byte) ([]byte, error) {
	id, err := x.taskID()
	if err != nil {
		return b, err
	}
	t, err := x.s.opts.Tasks.Get(ctx, id)
	if err != nil {
		return b, taskError(err)
	}
	b = append(b, '{')
	if b, err = appendTask(b, &t); err != nil {
		return b, err
	}
	if b, err = appendTaskDetails(b, &t); err != nil {
		return b, err
	}
	return x.tail(b, nil, false)
}

func (x *exchange) tasksUpdate(ctx context.Context, b []byte) ([]byte, error) {
	id, err := x.taskID()
	if err != nil {
		return b, err
	}
	if kindOf(x.p.inputResponses) != '{' {
		return b, InvalidParams("Invalid params: inputResponses must be an object")
	}
	var responses map[string]json.RawMessage
	if err := json.Unmarshal(x.p.inputResponses, &responses); err != nil {
		return b, InvalidParams("Invalid params: inputResponses must be an object")
	}
	for k, v := range responses {
		if kindOf(v) != '{' {
			return b, InvalidParams("Invalid params: inputResponses[%q] must be an object", k)
		}
	}
	if err := x.s.opts.Tasks.Update(ctx, id, responses); err != nil {
		return b, taskError(err)
	}
	return x.ack(b)
}

func (x *exchange) tasksCancel(ctx context.Context, b []byte) ([]byte, error) {
	id, err := x.taskID()
	if err != nil {
		return b, err
	}
	if err := x.s.opts.Tasks.Cancel(ctx, id); err != nil {
		return b, taskError(err)
	}
	return x.ack(b)
}

// ack writes an empty modern result.
func (x *exchange) ack(b []byte) ([]byte, error) {
	b = append(b, `{"resultType":"complete"`...)
	return x.s.appendResultMeta(b, nil)
}

// taskMode decides how a tools/call runs: as a task (true), synchronously
// (false), or not at all (a -32021 for a required-task tool called by a
// client without the extension).
func (x *exchange) taskMode(te *toolEntry) (bool, error) {
	if te.def.TaskSupport == TaskForbidden || !x.modern || x.s.opts.Tasks == nil {
		return false, nil
	}
	if declaresTasks(x.p.metaClientCaps) {
		return true, nil
	}
	if te.def.TaskSupport == TaskRequired {
		return false, errTasksUndeclared()
	}
	return false, nil
}

// createTask runs the call's Prepare step (which may still ask for input
// the MRTR way), creates the task and writes the CreateTaskResult.
func (x *exchange) createTask(ctx context.Context, b []byte, te *toolEntry, cr *CallRequest, args json.RawMessage) ([]byte, error) {
	res, err := x.s.prepareTask(ctx, te, cr, args)
	if err != nil {
		var ir *InputRequiredError
		if errors.As(err, &ir) {
			return x.writeInputRequired(b, te.def.Name, ir)
		}
		return b, err
	}
	if res != nil { // refused before a task was made: the result answers the call
		if b, err = res.appendJSON(b); err != nil {
			return b, err
		}
		return x.tail(b, res.Meta, false)
	}
	call := TaskCall{
		Tool: te.def.Name, Arguments: slices.Clone(cr.Arguments),
		ClientCapabilities: slices.Clone(x.p.metaClientCaps), Inputs: cr.InputResponses(),
	}
	srv := x.s
	call.Run = func(ctx context.Context, inputs map[string]json.RawMessage, state []byte) TaskOutcome {
		return srv.RunTask(ctx, call, inputs, state)
	}
	t, err := x.s.opts.Tasks.Create(ctx, call)
	if err != nil {
		return b, err
	}
	b = append(b, `{"resultType":"task",`...)
	if b, err = appendTask(b, &t); err != nil {
		return b, err
	}
	return x.s.appendResultMeta(b, nil)
}

// adoptTask answers a task call whose tool started the long work itself
// (Tool.TaskFromResult) with the task the store reports for it.
func (x *exchange) adoptTask(ctx context.Context, b []byte, id string) ([]byte, error) {
	t, err := x.s.opts.Tasks.Get(ctx, id)
	if err != nil {
		return b, err
	}
	b = append(b, `{"resultType":"task",`...)
	if b, err = appendTask(b, &t); err != nil {
		return b, err
	}
	return x.s.appendResultMeta(b, nil)
}

// prepareTask checks a task call's arguments and runs the tool's Prepare.
// A non-nil result means the call ends here, answered synchronously
// (invalid arguments, a refusal); an error is a protocol error or
// *InputRequiredError.
func (s *Server) prepareTask(ctx context.Context, te *toolEntry, cr *CallRequest, args json.RawMessage) (*CallToolResult, error) {
	if v := te.in.argViolations(args); v != nil {
		return validationResult(te.def.Name, v), nil
	}
	cr.Arguments = args
	if te.def.Prepare == nil {
		return nil, nil
	}
	err := te.def.Prepare(ctx, cr)
	var ir *InputRequiredError
	var pe *Error
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &ir), errors.As(err, &pe):
		return nil, err
	}
	return ErrorResult(err.Error()), nil
}
