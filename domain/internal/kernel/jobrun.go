package kernel

import (
	"context"
	"sync"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// JobHandler runs one job of a kind. ctx carries the job's user as the
// principal (with the job's scope only) and ends when the job is canceled
// or its time is up; the handler reports progress through run. It returns
// the kind's report, which becomes the job's result, or an error: a
// contracts error's message becomes the job's error; any other error
// fails the job with a generic message (the cause is logged).
type JobHandler func(ctx context.Context, run *JobRun) (result any, err error)

// Jobs is what the rooms need of the job queue, which the background
// room implements (its JobService): submit a job of a registered kind for
// the acting user, and register a kind's handler and its clean-up. Rooms
// reach background only through it, so none of them imports background.
type Jobs interface {
	// Submit queues a job of a registered kind for the acting user (see
	// JobService.Submit for the errors: invalid kind, missing scope).
	Submit(ctx context.Context, kind string, input any) (contracts.Job, error)
	// Register makes kind runnable by h, seen and canceled with scope.
	Register(kind string, scope contracts.Scope, h JobHandler)
	// OnAbandoned registers f to clean up after an abandoned job of kind.
	OnAbandoned(kind string, f func(ctx context.Context, j ports.JobRow))
}

// JobRun is one execution of a job, as its handler sees it.
type JobRun struct {
	// Job is the job as claimed (Input holds the kind's input).
	Job ports.JobRow

	mu       sync.Mutex
	progress contracts.JobProgress
}

// Progress records how far the job has come; the runner stores it with
// its next lease renewal.
func (r *JobRun) Progress(done, total int64, message string) {
	r.mu.Lock()
	r.progress = contracts.JobProgress{Done: done, Total: total, Message: message}
	r.mu.Unlock()
}

// NewJobRun starts a run of claimed job j at the progress it has stored.
func NewJobRun(j ports.JobRow) *JobRun { return &JobRun{Job: j, progress: j.Progress} }

// Current is the progress last reported.
func (r *JobRun) Current() contracts.JobProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}
