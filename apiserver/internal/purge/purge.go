// Package purge runs the deletion of what has expired on a schedule. Every
// instance of the service runs it; that is safe because every job is a
// loop of small idempotent batches (a row deleted by one instance is
// simply not found by another), so no instance needs to be elected and no
// lock is held across batches.
//
// A job is a function that deletes up to limit rows and says how many it
// deleted. To add one (the trash, unused media, …), register it where the
// scheduler is built (apiserver's providePurge):
//
//	s.Register(purge.Job{Name: "trash", Every: time.Hour, Run: svc.Trash.PurgeExpired})
//
// The scheduler calls Run with its batch size until a call deletes fewer
// rows than that, pausing between batches so a large backlog does not
// hold the database, counts the rows and failures in the metrics, and
// logs what it did.
package purge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Func deletes up to limit expired rows and returns how many it deleted;
// fewer than limit means nothing is left. It must be idempotent and safe
// to run on several instances at once.
type Func func(ctx context.Context, limit int) (int, error)

// Job is one kind of purge.
type Job struct {
	// Name names the job in logs and metrics (snake_case, unique).
	Name string
	// Every is how often it runs (DefaultEvery when zero).
	Every time.Duration
	// Run deletes one batch.
	Run Func
}

// Counter is where the scheduler counts its work (the service's metrics).
type Counter interface {
	// Purged counts rows a job deleted.
	Purged(job string, rows int)
	// PurgeFailed counts a failed run of a job.
	PurgeFailed(job string)
}

// Defaults.
const (
	DefaultEvery = time.Hour
	DefaultBatch = 500
	DefaultPause = 50 * time.Millisecond
	// maxBatches bounds one run: a backlog larger than this many batches
	// is left for the next run.
	maxBatches = 1000
	// runTimeout bounds one run of one job.
	runTimeout = 5 * time.Minute
)

// Options tune the scheduler; zero fields take the defaults.
type Options struct {
	// Batch is the limit passed to every call of a job.
	Batch int
	// Pause is the wait between two batches of one run.
	Pause time.Duration
}

// Scheduler runs the registered jobs. Register every job before Start.
type Scheduler struct {
	log  *slog.Logger
	m    Counter
	opt  Options
	mu   sync.Mutex
	jobs []Job
	on   bool
}

// New returns a scheduler with no jobs.
func New(log *slog.Logger, m Counter, opt Options) *Scheduler {
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	if opt.Pause <= 0 {
		opt.Pause = DefaultPause
	}
	return &Scheduler{log: log, m: m, opt: opt}
}

// Register adds a job. It panics on a job without a name or a function,
// on a name already taken, and after Start: these are wiring mistakes,
// caught when the service is built.
func (s *Scheduler) Register(j Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.Name == "" || j.Run == nil {
		panic("purge: a job needs a name and a function")
	}
	if s.on {
		panic("purge: job " + j.Name + " registered after Start")
	}
	for _, o := range s.jobs {
		if o.Name == j.Name {
			panic("purge: job " + j.Name + " registered twice")
		}
	}
	if j.Every <= 0 {
		j.Every = DefaultEvery
	}
	s.jobs = append(s.jobs, j)
}

// Jobs returns the registered jobs' names, in registration order.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.jobs))
	for i, j := range s.jobs {
		out[i] = j.Name
	}
	return out
}

// RunNow runs every job once, until it has nothing left (or its run's
// bound), and returns the rows each deleted. Errors are joined; a failing
// job does not stop the others.
func (s *Scheduler) RunNow(ctx context.Context) (map[string]int, error) {
	s.mu.Lock()
	jobs := append([]Job(nil), s.jobs...)
	s.mu.Unlock()
	out := map[string]int{}
	var errs []error
	for _, j := range jobs {
		n, err := s.run(ctx, j)
		out[j.Name] = n
		if err != nil {
			errs = append(errs, fmt.Errorf("purge %s: %w", j.Name, err))
		}
	}
	return out, errors.Join(errs...)
}

// Start runs each job on its own schedule until stop is called: the first
// run after a random delay of up to a tenth of its period (instances
// started together do not purge together), then every period give or
// take a tenth. stop waits for runs in progress to end (they are
// cancelled). The runs' context carries parent's values (not its
// cancellation: stop ends them).
func (s *Scheduler) Start(parent context.Context) (stop func()) {
	s.mu.Lock()
	s.on = true
	jobs := append([]Job(nil), s.jobs...)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTimer(jitter(j.Every / 10))
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				_, _ = s.run(ctx, j)
				t.Reset(j.Every - j.Every/10 + jitter(j.Every/5))
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// jitter returns a random duration in [0, d).
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// run runs one job: batches until one deletes fewer rows than the batch
// size, the run's bound is reached or ctx ends.
func (s *Scheduler) run(ctx context.Context, j Job) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	total := 0
	var err error
	for range maxBatches {
		var n int
		n, err = j.Run(ctx, s.opt.Batch)
		if n > 0 {
			total += n
			s.m.Purged(j.Name, n)
		}
		if err != nil || n < s.opt.Batch {
			break
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(s.opt.Pause):
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil && ctx.Err() == nil:
		s.m.PurgeFailed(j.Name)
		s.log.LogAttrs(ctx, slog.LevelError, "purge failed", slog.String("job", j.Name), slog.Int("rows", total), slog.Any("err", err))
	case total > 0:
		s.log.LogAttrs(ctx, slog.LevelInfo, "purged expired rows", slog.String("job", j.Name), slog.Int("rows", total))
	}
	return total, err
}
