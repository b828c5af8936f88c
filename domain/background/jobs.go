package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// jobKind is a registered kind: its handler and the scope a caller needs
// to see or cancel its jobs.
type jobKind struct {
	scope   contracts.Scope
	handler kernel.JobHandler
	// abandoned, when set, cleans up after a job of the kind that ends
	// without its handler returning (see OnAbandoned).
	abandoned func(ctx context.Context, j ports.JobRow)
	// budget is the kind's budget; unset, kernel.DefaultJobBudget.
	budget *kernel.JobBudget
}

// JobService starts, reports on and cancels the acting user's long jobs
// (ports.JobService), and holds the handlers the runners execute.
type JobService struct {
	*kernel.Deps
	mu    sync.RWMutex
	kinds map[string]jobKind
}

var _ ports.JobService = (*JobService)(nil)

// NewJobService builds the job service with no kind registered yet.
func NewJobService(d *kernel.Deps) *JobService {
	return &JobService{Deps: d, kinds: map[string]jobKind{}}
}

// Register makes kind runnable: its jobs run h and need scope to be seen
// or canceled. Registering a kind twice replaces its handler.
func (s *JobService) Register(kind string, scope contracts.Scope, h kernel.JobHandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[kind]
	k.scope, k.handler = scope, h
	s.kinds[kind] = k
}

// SetBudget gives kind's jobs budget b (a runner's RunnerConfig.Budgets
// overrides it).
func (s *JobService) SetBudget(kind string, b kernel.JobBudget) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[kind]
	k.budget = &b
	s.kinds[kind] = k
}

// OnAbandoned registers f to clean up after a job of kind whose runner
// stopped (a crash, a restart) and which a runner then ends without
// running its handler again: canceled meanwhile, or failed after
// MaxAttempts. f runs before the job is marked ended, without a
// principal; it must bound its own work.
func (s *JobService) OnAbandoned(kind string, f func(ctx context.Context, j ports.JobRow)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kinds[kind]
	k.abandoned = f
	s.kinds[kind] = k
}

func (s *JobService) kind(name string) (jobKind, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	k, ok := s.kinds[name]
	return k, ok
}

// Submit queues a job of a registered kind for the acting user with input
// (marshalled to JSON) and returns it; a runner picks it up. When the
// request in ctx asked for progress, Submit waits for the job as GetJob
// does. Invalid for an unregistered kind; forbidden when the credential
// lacks the kind's scope.
func (s *JobService) Submit(ctx context.Context, kind string, input any) (contracts.Job, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.Job{}, err
	}
	k, ok := s.kind(kind)
	if !ok {
		return contracts.Job{}, contracts.Errorf(contracts.KindInvalid, "unknown job kind %q", kind)
	}
	if !slices.Contains(p.Scopes, k.scope) {
		return contracts.Job{}, contracts.ScopeErrorf([]contracts.Scope{k.scope}, "this credential lacks %s, which %s jobs need", k.scope, kind)
	}
	in, err := json.Marshal(input)
	if err != nil {
		return contracts.Job{}, kernel.Fail(err)
	}
	now := s.Now()
	row := ports.JobRow{Job: contracts.Job{ID: s.IDs.NewID(), Kind: kind, Status: contracts.JobQueued, CreatedAt: now, UpdatedAt: now},
		UserID: p.UserID, Scope: k.scope, Input: in}
	if err := s.Store.Jobs().CreateJob(ctx, row); err != nil {
		return contracts.Job{}, err
	}
	if contracts.ProgressFrom(ctx) != nil {
		return s.wait(ctx, p.UserID, row.ID)
	}
	return shown(row), nil
}

// visible returns the user's job when the credential carries its scope.
func (s *JobService) visible(ctx context.Context, jobID string) (contracts.Principal, ports.JobRow, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return p, ports.JobRow{}, err
	}
	if !kernel.PlausibleID(jobID) {
		return p, ports.JobRow{}, kernel.NotFound("job", jobID)
	}
	j, err := s.Store.Jobs().GetJob(ctx, p.UserID, jobID)
	if contracts.KindOf(err) == contracts.KindNotFound {
		return p, ports.JobRow{}, kernel.NotFound("job", jobID)
	}
	if err != nil {
		return p, ports.JobRow{}, err
	}
	need := s.jobScope(j)
	if !slices.Contains(p.Scopes, need) {
		return p, ports.JobRow{}, contracts.ScopeErrorf([]contracts.Scope{need},
			"job %s (%s) can be read or cancelled only with the %s scope, which this credential lacks (it has %s); use a key or connection granted %s",
			kernel.QuoteID(jobID), jobKindName(j.Kind), need, grantedList(p.Scopes), need)
	}
	return p, j, nil
}

// jobScope is the scope a caller needs to see or cancel j: its kind's
// scope when the kind is registered (a kind whose scope changed governs
// its older jobs too), else the scope stored with the job.
func (s *JobService) jobScope(j ports.JobRow) contracts.Scope {
	if k, ok := s.kind(j.Kind); ok {
		return k.scope
	}
	return j.Scope
}

// jobKindName names a job kind for a message: a task's kind names its tool.
func jobKindName(kind string) string {
	if t, ok := strings.CutPrefix(kind, "mcp_task:"); ok {
		return t + " task"
	}
	return kind
}

// grantedList lists scopes for a message, or says there are none.
func grantedList(scopes []contracts.Scope) string {
	if len(scopes) == 0 {
		return "no scopes"
	}
	return contracts.JoinScopes(scopes, ", ")
}

// GetJob implements ports.JobService.
func (s *JobService) GetJob(ctx context.Context, jobID string) (contracts.Job, error) {
	p, j, err := s.visible(ctx, jobID)
	if err != nil {
		return contracts.Job{}, err
	}
	if contracts.ProgressFrom(ctx) != nil && !j.Status.Final() {
		return s.wait(ctx, p.UserID, jobID)
	}
	return shown(j), nil
}

// CancelJob implements ports.JobService.
func (s *JobService) CancelJob(ctx context.Context, jobID string) (contracts.Job, error) {
	p, _, err := s.visible(ctx, jobID)
	if err != nil {
		return contracts.Job{}, err
	}
	j, err := s.Store.Jobs().RequestCancel(ctx, p.UserID, jobID, s.Now())
	return shown(j), err
}

// Wait implements kernel.Jobs: it reads the acting user's job until it
// ends or ctx's deadline is near (jobWaitMargin before it; 5 minutes
// without one), passing its progress on when the request asked for it.
func (s *JobService) Wait(ctx context.Context, jobID string) (contracts.Job, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.Job{}, err
	}
	return s.wait(ctx, p.UserID, jobID)
}

// shown is a job as callers see it: a preview's job says it is a dry run.
func shown(j ports.JobRow) contracts.Job {
	out := j.Job
	out.DryRun = out.Kind == contracts.JobKindImportPreview
	return out
}

// jobWaitPoll is how often a waiting request reads its job again.
const jobWaitPoll = 250 * time.Millisecond

// jobWaitMargin is the time a waiting request keeps before its deadline to
// answer with the job as it is.
const jobWaitMargin = 2 * time.Second

// wait reads the job until it ends or ctx's deadline is near, reporting
// each change of progress to the request's progress receiver.
func (s *JobService) wait(ctx context.Context, uid, jobID string) (contracts.Job, error) {
	report := contracts.ProgressFrom(ctx)
	stop := time.Now().Add(5 * time.Minute)
	if dl, ok := ctx.Deadline(); ok {
		stop = dl.Add(-jobWaitMargin)
	}
	var last contracts.JobProgress
	for {
		j, err := s.Store.Jobs().GetJob(ctx, uid, jobID)
		if err != nil {
			return contracts.Job{}, err
		}
		if report != nil && j.Progress != last {
			last = j.Progress
			report(last)
		}
		if j.Status.Final() || time.Now().Add(jobWaitPoll).After(stop) {
			return shown(j), nil
		}
		t := time.NewTimer(jobWaitPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return shown(j), nil
		case <-t.C:
		}
	}
}

// RunnerConfig bounds a job runner. Zero fields take the defaults.
type RunnerConfig struct {
	// Owner names this runner in leases; unique per process (default: a new id).
	Owner string
	// Poll is how often an idle runner looks for work (default 1s).
	Poll time.Duration
	// Lease is how long a claim lasts without renewal (default 30s). A
	// job whose runner stopped renewing is claimed again after it ends.
	Lease time.Duration
	// Heartbeat is how often a running job's lease is renewed, its
	// progress stored and a cancellation looked for (default 1s, at most
	// a third of Lease).
	Heartbeat time.Duration
	// Timeout bounds one run of a job (default 30m).
	Timeout time.Duration
	// MaxAttempts is how many claims a job gets before a lapsed lease
	// fails it instead of running it again (default 2).
	MaxAttempts int
	// Concurrency is how many jobs this runner runs at once (default
	// DefaultJobRunners).
	Concurrency int
	// Logger receives failures (default: slog.Default()).
	Logger *slog.Logger
	// Budgets overrides kinds' budget limits (by kind; the kind's advice
	// stays): an operator's or a test's.
	Budgets map[string]contracts.JobBudget
}

// DefaultJobRunners is how many jobs a runner runs at once unless told:
// two, so one account's long import never holds every other account's
// jobs back (the store runs at most one job of an account at a time), and
// small enough that two package imports stay within the memory and the
// one SQLite writer a small instance has (OPERATIONS.md, "Long jobs").
const DefaultJobRunners = 2

// JobRunner executes queued jobs detached from requests, under leases
// stored with the jobs, so any instance may run any job and a job whose
// instance died is resumed or failed by another.
type JobRunner struct {
	jobs *JobService
	cfg  RunnerConfig
}

// Runner returns a runner of this service's registered kinds.
func (s *JobService) Runner(cfg RunnerConfig) *JobRunner {
	if cfg.Owner == "" {
		cfg.Owner = s.IDs.NewID()
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = time.Second
	}
	cfg.Heartbeat = min(cfg.Heartbeat, cfg.Lease/3)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Minute
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 2
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultJobRunners
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &JobRunner{jobs: s, cfg: cfg}
}

// Run runs jobs until ctx ends; it returns when its running jobs have
// stopped. Jobs it was running when ctx ended keep their lease until it
// lapses, and are then resumed by a runner (or failed after MaxAttempts).
func (r *JobRunner) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range r.cfg.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				ran, err := r.RunOnce(ctx)
				if err != nil && ctx.Err() == nil {
					r.cfg.Logger.Warn("job runner", "err", err)
				}
				if ran {
					continue
				}
				t := time.NewTimer(r.cfg.Poll)
				select {
				case <-ctx.Done():
				case <-t.C:
				}
				t.Stop()
			}
		})
	}
	wg.Wait()
}

// RunOnce claims one runnable job and runs it to its end; ran is false
// when there was none.
func (r *JobRunner) RunOnce(ctx context.Context) (ran bool, err error) {
	s := r.jobs
	now := s.Now()
	j, ok, err := s.Store.Jobs().ClaimJob(ctx, r.cfg.Owner, now, now.Add(r.cfg.Lease))
	if err != nil || !ok {
		return false, err
	}
	k, known := s.kind(j.Kind)
	switch {
	case !known:
		return true, r.finish(j, contracts.JobFailed, nil, fmt.Sprintf("this server cannot run %s jobs", j.Kind))
	case j.CancelRequested:
		r.abandon(ctx, k, j)
		return true, r.finish(j, contracts.JobCanceled, nil, "canceled")
	case j.Attempts > r.cfg.MaxAttempts:
		r.abandon(ctx, k, j)
		return true, r.finish(j, contracts.JobFailed, nil, "the server running this job stopped; start it again")
	}
	run := kernel.NewJobRun(j, r.budget(k, j.Kind))
	// The job's time is its budget's, or the runner's timeout if shorter.
	limit, budgeted := r.cfg.Timeout, false
	if sec := run.Budget().Limit.Seconds; sec > 0 && time.Duration(sec)*time.Second <= limit {
		limit, budgeted = time.Duration(sec)*time.Second, true
	}
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	defer cancel()
	jctx = contracts.WithPrincipal(jctx, contracts.Principal{UserID: j.UserID, Scopes: []contracts.Scope{k.scope}, CredentialKind: contracts.CredentialJob, CredentialID: j.ID})
	jctx = contracts.WithOperationID(jctx, j.ID) // the job's change records and audit rows

	// The lease keeper renews the lease with the latest progress, and
	// stops the handler when the job is canceled, the lease is lost or
	// the runner is stopping.
	var why error
	var whyMu sync.Mutex
	stop := func(err error) {
		whyMu.Lock()
		if why == nil {
			why = err
		}
		whyMu.Unlock()
		cancel()
	}
	keeperDone := make(chan struct{})
	go func() {
		defer close(keeperDone)
		tick := time.NewTicker(r.cfg.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-jctx.Done():
				return
			case <-ctx.Done():
				stop(errRunnerStopping)
				return
			case <-tick.C:
			}
			now := s.Now()
			canceled, err := s.Store.Jobs().RenewLease(jctx, j.ID, r.cfg.Owner, run.Current(), now, now.Add(r.cfg.Lease))
			switch {
			case contracts.KindOf(err) == contracts.KindConflict:
				stop(errLeaseLost)
				return
			case err != nil:
				r.cfg.Logger.Warn("job lease renewal", "job", j.ID, "err", err)
			case canceled:
				stop(errJobCanceled)
				return
			}
		}
	}()
	result, herr := r.safely(jctx, k.handler, run)
	timedOut := errors.Is(jctx.Err(), context.DeadlineExceeded)
	cancel()
	<-keeperDone

	whyMu.Lock()
	reason := why
	whyMu.Unlock()
	switch {
	case errors.Is(reason, errLeaseLost) || errors.Is(reason, errRunnerStopping):
		// Another runner owns the job now, or will once the lease lapses.
		return true, nil
	case errors.Is(reason, errJobCanceled):
		return true, r.finish(j, contracts.JobCanceled, nil, "canceled")
	}
	// The last progress, with the budget used, goes with the result or
	// the error, so an ended job shows it.
	now = s.Now()
	if _, err := s.Store.Jobs().RenewLease(context.WithoutCancel(ctx), j.ID, r.cfg.Owner, run.Current(), now, now.Add(r.cfg.Lease)); contracts.KindOf(err) == contracts.KindConflict {
		return true, nil // the lease is gone: another runner has the job
	}
	if herr != nil {
		msg := "the job failed; see the server log for job " + j.ID
		var ce *contracts.Error
		switch {
		case (timedOut || errors.Is(herr, context.DeadlineExceeded)) && budgeted:
			msg = run.OverTime().Error()
		case timedOut || errors.Is(herr, context.DeadlineExceeded):
			msg = fmt.Sprintf("the job ran longer than its limit of %s", r.cfg.Timeout)
		case errors.As(herr, &ce) && ce.Kind != contracts.KindInternal:
			msg = ce.Message
		default:
			r.cfg.Logger.Error("job failed", "job", j.ID, "kind", j.Kind, "err", herr)
		}
		return true, r.finish(j, contracts.JobFailed, nil, msg)
	}
	out, err := json.Marshal(result)
	if err != nil {
		return true, r.finish(j, contracts.JobFailed, nil, "the job's report could not be stored")
	}
	return true, r.finish(j, contracts.JobSucceeded, out, "")
}

// budget is the budget of a job of kind k (named kind): the kind's,
// with the runner's override of its limits.
func (r *JobRunner) budget(k jobKind, kind string) kernel.JobBudget {
	b := kernel.DefaultJobBudget
	if k.budget != nil {
		b = *k.budget
	}
	if lim, ok := r.cfg.Budgets[kind]; ok {
		b.Limit = lim
	}
	return b
}

// safely runs a handler, turning a panic into an error.
func (r *JobRunner) safely(ctx context.Context, h kernel.JobHandler, run *kernel.JobRun) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job handler panicked: %v", p)
		}
	}()
	return h(ctx, run)
}

// abandon runs the kind's clean-up of a job that ends without its
// handler, within the runner's job timeout.
func (r *JobRunner) abandon(ctx context.Context, k jobKind, j ports.JobRow) {
	if k.abandoned == nil {
		return
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.Timeout)
	defer cancel()
	k.abandoned(actx, j)
}

// finish ends a job this runner holds; a lost lease is not an error.
func (r *JobRunner) finish(j ports.JobRow, status contracts.JobStatus, result []byte, msg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := r.jobs.Store.Jobs().FinishJob(ctx, j.ID, r.cfg.Owner, status, result, msg, r.jobs.Now())
	if contracts.KindOf(err) == contracts.KindConflict {
		return nil
	}
	return err
}

var (
	errLeaseLost      = errors.New("the job's lease was lost")
	errRunnerStopping = errors.New("the runner is stopping")
	errJobCanceled    = errors.New("the job was canceled")
)
