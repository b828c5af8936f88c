package surface

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// An MCP task here is a stored job (the job layer of ports.JobService):
// creating the task submits a job of kind TaskJobKind(tool) whose input is
// the call, a job runner on any instance runs it with RunTaskJob, and
// tasks/get reads the job back, so a task survives the instance that
// created it.

// taskJobPrefix starts the job kind of every MCP task.
const taskJobPrefix = "mcp_task:"

// TaskPollInterval is the polling interval suggested to clients: about
// the runners' heartbeat, at which a job's progress is stored.
const TaskPollInterval = time.Second

// TaskJobKind is the job kind that runs calls of tool as MCP tasks.
func TaskJobKind(tool string) string { return taskJobPrefix + tool }

// taskJobResult is the result a task's job stores: the tool call's
// outcome, a completed CallToolResult or the JSON-RPC error it failed with.
type taskJobResult struct {
	Status mcpcore.TaskStatus `json:"status"`
	Result json.RawMessage    `json:"result,omitempty"`
	Error  *taskJobError      `json:"error,omitempty"`
}

type taskJobError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// RunTaskJob runs one task's job: input is the TaskCall the task was
// created with; ctx carries the job's principal and ends when the job is
// cancelled. The returned value is the job's result. A call that asks for
// input fails the task: a stored job cannot wait for the client.
func RunTaskJob(ctx context.Context, srv *mcpcore.Server, input json.RawMessage) (any, error) {
	var call mcpcore.TaskCall
	if err := json.Unmarshal(input, &call); err != nil {
		return nil, contracts.Errorf(contracts.KindInvalid, "the task's call could not be read")
	}
	out := srv.RunTask(ctx, call, call.Inputs, nil)
	switch out.Status {
	case mcpcore.TaskCompleted:
		return taskJobResult{Status: out.Status, Result: out.Result}, nil
	case mcpcore.TaskCancelled:
		return nil, context.Cause(ctx)
	case mcpcore.TaskInputRequired:
		return taskJobResult{Status: mcpcore.TaskFailed, Error: &taskJobError{Code: mcpcore.CodeInvalidParams,
			Message: "the tool asked for input while running as a task; call it again without the tasks extension"}}, nil
	}
	e := &taskJobError{Code: mcpcore.CodeInternalError, Message: "the task failed"}
	if out.Error != nil {
		e = &taskJobError{Code: out.Error.Code, Message: out.Error.Message, Data: out.Error.Data}
	}
	return taskJobResult{Status: mcpcore.TaskFailed, Error: e}, nil
}

// jobTasks is the mcpcore.TaskStore over the job layer of the port.
// kinds are the job kinds of the tools that start a job themselves
// (ToolDef.JobKind): their task is that job, not a call wrapped in one.
type jobTasks struct {
	svc   ports.McpServices
	kinds map[string]bool
}

// jobToolKinds returns the job kinds of the catalog's task tools that
// start a job themselves.
func jobToolKinds() map[string]bool {
	kinds := map[string]bool{}
	for _, def := range contracts.Catalog() {
		if def.JobKind != "" && def.TaskSupport != "" {
			kinds[def.JobKind] = true
		}
	}
	return kinds
}

// taskFromJob is the mcpcore.Tool.TaskFromResult of a tool that starts a
// job: the task is the job its result names (nil for other tools).
func taskFromJob(def contracts.ToolDef) func(*mcpcore.CallToolResult) (string, bool) {
	if def.JobKind == "" || def.TaskSupport == "" {
		return nil
	}
	return func(res *mcpcore.CallToolResult) (string, bool) {
		raw, ok := res.StructuredContent.(json.RawMessage)
		var job contracts.Job
		if !ok || json.Unmarshal(raw, &job) != nil || job.ID == "" || job.Kind != def.JobKind {
			return "", false
		}
		return job.ID, true
	}
}

// Create implements mcpcore.TaskStore: the job is stored before it returns.
func (j jobTasks) Create(ctx context.Context, call mcpcore.TaskCall) (mcpcore.Task, error) {
	in, err := json.Marshal(call)
	if err != nil {
		return mcpcore.Task{}, err
	}
	job, err := j.svc.SubmitJob(withGrant(ctx), TaskJobKind(call.Tool), in)
	if err != nil {
		return mcpcore.Task{}, taskStoreError(err)
	}
	return taskOf(job), nil
}

// Get implements mcpcore.TaskStore.
func (j jobTasks) Get(ctx context.Context, id string) (mcpcore.Task, error) {
	job, err := j.job(ctx, id)
	if err != nil {
		return mcpcore.Task{}, err
	}
	if j.kinds[job.Kind] {
		return jobTaskOf(job), nil
	}
	return taskOf(job), nil
}

// Update implements mcpcore.TaskStore: a task's job never waits for
// input, so there is nothing to hand over once the task is found.
func (j jobTasks) Update(ctx context.Context, id string, _ map[string]json.RawMessage) error {
	_, err := j.job(ctx, id)
	return err
}

// Cancel implements mcpcore.TaskStore; a finished job is left alone.
func (j jobTasks) Cancel(ctx context.Context, id string) error {
	job, err := j.job(ctx, id)
	if err != nil || job.Status.Final() {
		return err
	}
	_, err = j.svc.CancelJob(withGrant(ctx), contracts.CancelJobArgs{JobID: id})
	return taskStoreError(err)
}

// job reads the caller's task job; any other id is not a task.
func (j jobTasks) job(ctx context.Context, id string) (contracts.Job, error) {
	ctx = withGrant(ctx)
	job, err := j.svc.GetJob(ctx, contracts.GetJobArgs{JobID: id})
	if err != nil {
		return job, taskStoreError(err)
	}
	if !strings.HasPrefix(job.Kind, taskJobPrefix) && !j.kinds[job.Kind] {
		return contracts.Job{}, mcpcore.ErrTaskNotFound
	}
	return job, nil
}

// taskStoreError maps a port error: an unknown job is an unknown task, a
// credential that lacks the scope of the job's kind gets the same -32003
// insufficient-scope error as a tool outside its grant (over HTTP, for an
// OAuth principal, a 403 challenge naming the scope, so the client can
// step up), another refusal the model can act on is -32602 with its
// message, anything else stays an internal error.
//
// The scope check cannot reveal a task to someone who may not see it: a
// task is bound to its user (the authorization context the tasks
// extension asks servers to bind tasks to), the job store finds only the
// caller's own jobs, and another user's task answers exactly as an id
// that names no task (-32602, "Task not found"). Only the owner, through a
// narrower credential of their own, learns which scope their task needs.
func taskStoreError(err error) error {
	var ce *contracts.Error
	if !errors.As(err, &ce) {
		return err
	}
	switch ce.Kind {
	case contracts.KindNotFound:
		return mcpcore.ErrTaskNotFound
	case contracts.KindForbidden:
		if scopes := contracts.ScopesOf(err); len(scopes) > 0 {
			return mcpcore.ScopeError(contracts.ScopeStrings(scopes))
		}
		return mcpcore.InvalidParams("%s", ce.Message)
	case contracts.KindInvalid, contracts.KindConflict:
		return mcpcore.InvalidParams("%s", ce.Message)
	}
	return err
}

// taskOf reads a task from its job.
func taskOf(job contracts.Job) mcpcore.Task {
	t := mcpcore.Task{ID: job.ID, CreatedAt: job.CreatedAt, UpdatedAt: job.UpdatedAt, PollInterval: TaskPollInterval,
		StatusMessage: job.Progress.Message}
	switch job.Status {
	case contracts.JobQueued, contracts.JobRunning:
		t.Status = mcpcore.TaskWorking
		if job.CancelRequested {
			t.StatusMessage = "cancelling"
		}
	case contracts.JobCanceled:
		t.Status, t.StatusMessage = mcpcore.TaskCancelled, "cancelled"
	case contracts.JobFailed:
		t.Status, t.StatusMessage = mcpcore.TaskFailed, job.Error
		t.Error = mcpcore.NewError(mcpcore.CodeInternalError, job.Error, nil)
	case contracts.JobSucceeded:
		var r taskJobResult
		if json.Unmarshal(job.Result, &r) != nil || (r.Status == mcpcore.TaskFailed) == (r.Error == nil) {
			t.Status, t.StatusMessage = mcpcore.TaskFailed, "the task's result could not be read"
			t.Error = mcpcore.NewError(mcpcore.CodeInternalError, t.StatusMessage, nil)
			break
		}
		t.Status = r.Status
		if r.Error != nil {
			t.StatusMessage = r.Error.Message
			t.Error = mcpcore.NewError(r.Error.Code, r.Error.Message, r.Error.Data)
		} else {
			t.Result = r.Result
		}
	}
	return t
}

// jobTaskOf reads the task of a tool that started a job itself: while the
// job runs the task works (its progress as the status message); a job that
// ended, succeeded or failed, completes the task with the finished job as
// get_job shows it (isError when it failed, so the model reads why); a
// canceled job cancels it.
func jobTaskOf(job contracts.Job) mcpcore.Task {
	t := taskOf(job)
	if job.Status != contracts.JobSucceeded && job.Status != contracts.JobFailed {
		return t
	}
	res, err := mcpcore.StructuredResult(job)
	var raw json.RawMessage
	if err == nil {
		res.IsError = job.Status == contracts.JobFailed
		raw, err = mcpcore.EncodeResult(res)
	}
	if err != nil {
		t.Status, t.StatusMessage = mcpcore.TaskFailed, "the job's result could not be read"
		t.Error = mcpcore.NewError(mcpcore.CodeInternalError, t.StatusMessage, nil)
		return t
	}
	t.Status, t.Result, t.Error = mcpcore.TaskCompleted, raw, nil
	t.StatusMessage = job.Progress.Message
	if job.Status == contracts.JobFailed {
		t.StatusMessage = job.Error
	}
	return t
}
