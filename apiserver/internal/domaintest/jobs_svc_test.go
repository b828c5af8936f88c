package domain_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
)

const testKind = "test_count"

// registerCounter registers a job kind that counts to its input's n,
// reporting progress at each step, waiting on gate (when set) before each
// step; n < 0 fails it with an invalid error, n == 0 with an internal one.
func registerCounter(e *env, gate chan struct{}) {
	e.svc.Jobs.Register(testKind, contracts.ScopeDecksWrite, func(ctx context.Context, run *domain.JobRun) (any, error) {
		var in struct{ N int64 }
		if err := json.Unmarshal(run.Job.Input, &in); err != nil {
			return nil, err
		}
		p, _ := contracts.PrincipalFrom(ctx)
		if p.UserID != run.Job.UserID || p.CredentialKind != contracts.CredentialJob {
			return nil, errors.New("the handler does not act for the job's user")
		}
		switch {
		case in.N < 0:
			return nil, contracts.Errorf(contracts.KindInvalid, "n must not be negative")
		case in.N == 0:
			return nil, errors.New("secret database detail")
		}
		for i := int64(1); i <= in.N; i++ {
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			run.Progress(i, in.N, "counting")
		}
		return map[string]int64{"counted": in.N}, nil
	})
}

func TestJobs(t *testing.T) { eachStore(t, testJobs) }

func testJobs(t *testing.T, store string) {
	e := newEnv(t, store)
	registerCounter(e, nil)
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})

	job, err := e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != contracts.JobQueued || job.Kind != testKind {
		t.Fatalf("submitted job = %+v", job)
	}
	_, err = e.svc.Jobs.GetJob(other, job.ID)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Jobs.CancelJob(other, job.ID)
	wantKind(t, err, contracts.KindNotFound)
	readOnly := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: mustUser(t, ctx), Scopes: []contracts.Scope{contracts.ScopeDecksRead}})
	_, err = e.svc.Jobs.GetJob(readOnly, job.ID)
	wantKind(t, err, contracts.KindForbidden)
	_, err = e.svc.Jobs.Submit(readOnly, testKind, map[string]int{"n": 1})
	wantKind(t, err, contracts.KindForbidden)
	_, err = e.svc.Jobs.Submit(ctx, "no_such_kind", nil)
	wantKind(t, err, contracts.KindInvalid)

	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("RunOnce = %v, %v", ran, err)
	}
	got, err := e.svc.Jobs.GetJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != contracts.JobSucceeded || string(got.Result) != `{"counted":3}` || got.FinishedAt == nil || got.StartedAt == nil {
		t.Errorf("finished job = %+v (result %s)", got, got.Result)
	}
	if ran, err := runner.RunOnce(context.Background()); ran || err != nil {
		t.Errorf("RunOnce with nothing queued = %v, %v", ran, err)
	}

	// Failures: a domain error's message is the job's error; anything
	// else is a generic message that leaks nothing.
	for n, want := range map[int]string{-1: "n must not be negative", 0: "the job failed; see the server log for job "} {
		j, err := e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runner.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		got, _ := e.svc.Jobs.GetJob(ctx, j.ID)
		if got.Status != contracts.JobFailed || len(got.Error) < len(want) || got.Error[:len(want)] != want {
			t.Errorf("job with n=%d = %+v; want failed with %q", n, got, want)
		}
	}

	// A queued job canceled before any runner saw it never runs.
	q, _ := e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": 1})
	c, err := e.svc.Jobs.CancelJob(ctx, q.ID)
	if err != nil || c.Status != contracts.JobCanceled {
		t.Fatalf("CancelJob of a queued job = %+v, %v", c, err)
	}
	if ran, _ := runner.RunOnce(context.Background()); ran {
		t.Error("a canceled job ran")
	}
}

func mustUser(t *testing.T, ctx context.Context) string {
	t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return uid
}

// A running job stops at its next step once canceled, and while a
// request that asked for progress waits, it hears each step.
func TestJobCancelAndProgress(t *testing.T) { eachStore(t, testJobCancelAndProgress) }

func testJobCancelAndProgress(t *testing.T, store string) {
	e := newEnv(t, store)
	gate := make(chan struct{})
	registerCounter(e, gate)
	ctx := e.user("ada@example.com")
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: 90 * time.Millisecond, Poll: 10 * time.Millisecond})
	rctx, stopRunner := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { runner.Run(rctx) })
	defer func() { stopRunner(); wg.Wait() }()

	// Progress while a request waits: the wait answers when the job ends.
	job, err := e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []contracts.JobProgress
	wctx, cancelWait := context.WithTimeout(contracts.WithProgress(ctx, func(p contracts.JobProgress) {
		mu.Lock()
		heard = append(heard, p)
		mu.Unlock()
	}), 20*time.Second)
	defer cancelWait()
	go func() {
		for range 3 {
			gate <- struct{}{}
			time.Sleep(150 * time.Millisecond) // a lease renewal stores each step
		}
	}()
	got, err := e.svc.Jobs.GetJob(wctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != contracts.JobSucceeded {
		t.Fatalf("waited job = %+v", got)
	}
	mu.Lock()
	if len(heard) < 2 || heard[len(heard)-1].Done != 3 || heard[len(heard)-1].Total != 3 {
		t.Errorf("progress heard while waiting = %+v; want steps up to 3 of 3", heard)
	}
	mu.Unlock()

	// Cancel while running: the handler blocks on the gate; the runner
	// notices the request at its next renewal and ends the job canceled.
	job, _ = e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": 5})
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, _ := e.svc.Jobs.GetJob(ctx, job.ID)
		if j.Status == contracts.JobRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job never started: %+v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := e.svc.Jobs.CancelJob(ctx, job.ID)
	if err != nil || !c.CancelRequested {
		t.Fatalf("CancelJob = %+v, %v", c, err)
	}
	for {
		j, _ := e.svc.Jobs.GetJob(ctx, job.ID)
		if j.Status == contracts.JobCanceled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the canceled job did not stop: %+v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A job whose runner died (its lease lapsed) is run again by another
// runner; past MaxAttempts it is failed instead.
func TestJobLeaseLapse(t *testing.T) { eachStore(t, testJobLeaseLapse) }

func testJobLeaseLapse(t *testing.T, store string) {
	e := newEnv(t, store)
	registerCounter(e, nil)
	ctx := e.user("ada@example.com")
	for _, tc := range []struct {
		maxAttempts int
		want        contracts.JobStatus
	}{{2, contracts.JobSucceeded}, {1, contracts.JobFailed}} {
		job, _ := e.svc.Jobs.Submit(ctx, testKind, map[string]int{"n": 2})
		// A runner that dies right after its claim.
		if _, ok, err := e.store.Jobs().ClaimJob(context.Background(), "dead", e.clock.Now(), e.clock.Now().Add(time.Second)); !ok || err != nil {
			t.Fatalf("claim = %v, %v", ok, err)
		}
		e.clock.Advance(2 * time.Second)
		r := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "alive", MaxAttempts: tc.maxAttempts})
		if ran, err := r.RunOnce(context.Background()); !ran || err != nil {
			t.Fatalf("RunOnce = %v, %v", ran, err)
		}
		got, _ := e.svc.Jobs.GetJob(ctx, job.ID)
		if got.Status != tc.want {
			t.Errorf("MaxAttempts %d: job after a lapsed lease = %+v; want %s", tc.maxAttempts, got, tc.want)
		}
	}
}
