package domain_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
)

// hogKind is a job that holds its runner until the run ends: a stand-in
// for one account's slow or hostile job (a package that reads to its time
// budget), costing no CPU so that the timings measure the queue alone.
const hogKind = "test_hog"

// TestJobsFairBetweenAccounts (issue 29 §3.4): one account queues more
// jobs than the runner runs at once, a job that never ends first, then
// imports; another account's normal import then finishes within its usual
// time (±50%, the usual time measured in the same test with the queue
// empty). With one runner the same queue holds that import back for as
// long as the slow job runs, which shows the check can fail.
func TestJobsFairBetweenAccounts(t *testing.T) { eachStore(t, testJobsFairBetweenAccounts) }

func testJobsFairBetweenAccounts(t *testing.T, store string) {
	// fresh makes a new store with the slow kind and the two accounts.
	var e *env
	var hog, bob context.Context
	fresh := func() {
		e, _ = newImportEnv(t, store)
		e.svc.Jobs.Register(hogKind, contracts.ScopeDecksWrite, func(ctx context.Context, _ *domain.JobRun) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		hog, bob = e.user("hog@example.com"), e.user("bob@example.com")
	}
	fresh()
	var tsv strings.Builder
	for i := range 4000 {
		tsv.WriteString("front " + strconv.Itoa(i) + "\tback " + strconv.Itoa(i) + "\n")
	}
	// importTime runs ctx's import of the text into a new deck, with
	// runners running the queue, and returns how long it took from
	// submission to its end (limit when it had not ended by then).
	n := 0
	importTime := func(ctx context.Context, limit time.Duration) time.Duration {
		t.Helper()
		n++
		d := e.deck(ctx, "Import "+strconv.Itoa(n))
		job, err := e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: e.uploaded(ctx, "text/tab-separated-values", tsv.String()), DeckID: d.ID})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for time.Since(start) < limit {
			got, err := e.svc.Jobs.GetJob(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.Final() {
				if got.Status != contracts.JobSucceeded {
					t.Fatalf("the import ended %s: %s", got.Status, got.Error)
				}
				return time.Since(start)
			}
			time.Sleep(2 * time.Millisecond)
		}
		return limit
	}
	// run starts a runner of concurrency c; the returned stop ends it.
	run := func(c int) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		r := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "runner-" + strconv.Itoa(c), Lease: time.Minute, Poll: 2 * time.Millisecond, Concurrency: c})
		var wg sync.WaitGroup
		wg.Go(func() { r.Run(ctx) })
		return func() { cancel(); wg.Wait() }
	}
	// queueMore queues three imports of the other account.
	queueMore := func() {
		t.Helper()
		for range 3 {
			n++
			d := e.deck(hog, "Hog "+strconv.Itoa(n))
			if _, err := e.svc.Import.ImportPackage(hog, contracts.ImportPackageArgs{UploadID: e.uploaded(hog, "text/tab-separated-values", tsv.String()), DeckID: d.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// queueHog queues the slow job, waits until it runs, then queues more
	// imports than the runner runs at once.
	queueHog := func() {
		t.Helper()
		j, err := e.svc.Jobs.Submit(hog, hogKind, nil)
		if err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			got, err := e.svc.Jobs.GetJob(hog, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == contracts.JobRunning {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("the slow job did not start: %+v", got)
			}
		}
		queueMore()
	}

	// Each time the better of two runs: a shared machine's noise only
	// slows a run down, while an unfair queue slows down every run. When
	// the bound is missed the whole measure is taken again on a fresh
	// store, up to three times: other tests' bursts of CPU (CI runs
	// packages side by side on two cores) come and go, an unfair queue
	// misses it every time.
	measure := func() (usual, contended time.Duration) {
		stop := run(background.DefaultJobRunners)
		defer stop()
		importTime(bob, time.Minute) // warms caches and prepared statements
		usual = min(importTime(bob, time.Minute), importTime(bob, time.Minute))
		queueHog()
		contended = importTime(bob, time.Minute)
		queueMore()
		contended = min(contended, importTime(bob, time.Minute))
		return usual, contended
	}
	var usual, contended time.Duration
	for attempt := 1; ; attempt++ {
		usual, contended = measure()
		t.Logf("%s, measure %d: bob's import alone %v, behind the other account's queue %v (%.2fx)", store, attempt, usual, contended, float64(contended)/float64(usual))
		if contended <= usual*3/2 || attempt == 3 {
			break
		}
		fresh()
	}
	if contended > usual*3/2 {
		t.Errorf("behind another account's slow job and %d queued imports, bob's import took %v, its usual time %v: more than +50%% in three measures", 6, contended, usual)
	}

	// One runner: the slow job (still running: its lease outlives the
	// stopped runner) holds it, and bob's import waits past the bound.
	fresh()
	stop := run(1)
	defer stop()
	queueHog()
	if held := importTime(bob, 3*usual); held < 3*usual {
		t.Errorf("with one runner busy with the slow job, bob's import still ended in %v: the check above could not fail", held)
	}
}
