package kernel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

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
// the acting user, and register a kind's handler, budget and clean-up.
// Rooms reach background only through it, so none of them imports
// background.
type Jobs interface {
	// Submit queues a job of a registered kind for the acting user (see
	// JobService.Submit for the errors: invalid kind, missing scope).
	Submit(ctx context.Context, kind string, input any) (contracts.Job, error)
	// Wait reads the acting user's job until it ends or ctx's deadline is
	// near, and returns it as it is then.
	Wait(ctx context.Context, jobID string) (contracts.Job, error)
	// Register makes kind runnable by h, seen and canceled with scope.
	Register(kind string, scope contracts.Scope, h JobHandler)
	// SetBudget gives kind's jobs budget b instead of DefaultJobBudget.
	SetBudget(kind string, b JobBudget)
	// OnAbandoned registers f to clean up after an abandoned job of kind.
	OnAbandoned(kind string, f func(ctx context.Context, j ports.JobRow))
}

// JobBudget is a job kind's budget: its limits by kind (a zero limit is
// no limit) and what a caller can do about a job that goes over them,
// said in the job's error (e.g. how to split the work).
type JobBudget struct {
	Limit contracts.JobBudget
	// Advice ends the error of a job over its budget: what was kept of
	// its work, and how to split it.
	Advice string
}

// DefaultJobBudget is the budget of a kind that set none: 30 minutes (the
// runner's timeout, when shorter, bounds it too), a million items and
// 1 GiB.
var DefaultJobBudget = JobBudget{
	Limit:  contracts.JobBudget{Seconds: 30 * 60, Rows: 1_000_000, Bytes: 1 << 30},
	Advice: "split the work into smaller jobs",
}

// JobRun is one execution of a job, as its handler sees it.
type JobRun struct {
	// Job is the job as claimed (Input holds the kind's input).
	Job ports.JobRow

	mu       sync.Mutex
	progress contracts.JobProgress
	budget   JobBudget
	used     contracts.JobBudget // rows and bytes; seconds are measured from start
	start    time.Time
	over     error // the first charge over the budget, kept
}

// Progress records how far the job has come; the runner stores it with
// its next lease renewal.
func (r *JobRun) Progress(done, total int64, message string) {
	r.mu.Lock()
	r.progress = contracts.JobProgress{Done: done, Total: total, Message: message}
	r.mu.Unlock()
}

// NewJobRun starts a run of claimed job j at the progress it has stored,
// with budget b (its time counted from now; a new run of a job starts
// its budget again, as it starts its work again).
func NewJobRun(j ports.JobRow, b JobBudget) *JobRun {
	p := j.Progress
	p.Budget = contracts.JobBudgetUse{}
	return &JobRun{Job: j, progress: p, budget: b, start: time.Now()}
}

// Current is the progress last reported, with the budget and its use.
func (r *JobRun) Current() contracts.JobProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.progress
	used := r.used
	used.Seconds = int64(time.Since(r.start) / time.Second)
	p.Budget = contracts.JobBudgetUse{Limit: r.budget.Limit, Used: used}
	return p
}

// Budget is the run's budget.
func (r *JobRun) Budget() JobBudget { return r.budget }

// Charge counts rows items and bytes bytes the job has handled against
// its budget. It returns an invalid error, naming the limit, the use and
// the kind's advice, once the job has gone over any of its limits (time
// included): the handler stops and returns it, so the job fails with a
// reason a caller can act on. Safe for concurrent use.
func (r *JobRun) Charge(rows, bytes int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over != nil {
		return r.over
	}
	r.used.Rows += rows
	r.used.Bytes += bytes
	lim := r.budget.Limit
	elapsed := time.Since(r.start)
	switch {
	case lim.Rows > 0 && r.used.Rows > lim.Rows:
		r.over = r.overBudget(fmt.Sprintf("it handled more than its budget of %d items (notes, cards, media files and reviews, each counted as it is read)", lim.Rows))
	case lim.Bytes > 0 && r.used.Bytes > lim.Bytes:
		r.over = r.overBudget(fmt.Sprintf("it stored or read more than its budget of %s (%d bytes) of media and note text", byteSize(lim.Bytes), lim.Bytes))
	case lim.Seconds > 0 && elapsed > time.Duration(lim.Seconds)*time.Second:
		r.over = r.overBudget(r.timeReason())
	}
	return r.over
}

// OverTime is the error of a run stopped by its time budget, as Charge
// words it.
func (r *JobRun) OverTime() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overBudget(r.timeReason())
}

func (r *JobRun) timeReason() string {
	return fmt.Sprintf("it ran longer than its time budget of %s", time.Duration(r.budget.Limit.Seconds)*time.Second)
}

// overBudget words a job's failure over its budget; r.mu is held.
func (r *JobRun) overBudget(reason string) error {
	kind := r.Job.Kind
	if t, ok := strings.CutPrefix(kind, "mcp_task:"); ok {
		kind = "the " + t + " task"
	} else if kind == "" {
		kind = "the job"
	}
	return contracts.Errorf(contracts.KindInvalid, "%s stopped: %s; %s", kind, reason, r.budget.Advice)
}

// byteSize words n bytes in the largest binary unit that keeps it whole
// or near it (1.5 GiB, 300 MiB, 12 KiB, 900 B).
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
