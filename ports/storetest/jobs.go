package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testJobs(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	js := f.s.Jobs()
	job := func(user, id string, at time.Time) ports.JobRow {
		return ports.JobRow{Job: contracts.Job{ID: id, Kind: contracts.JobKindImportPackage, CreatedAt: at},
			UserID: user, Scope: contracts.ScopeDecksWrite, Input: []byte(`{"uploadId":"m1"}`)}
	}
	first, second := f.id("job"), f.id("job")
	must(t, js.CreateJob(f.ctx, job(a, first, f.now)))
	must(t, js.CreateJob(f.ctx, job(a, second, f.now.Add(time.Second))))
	wantKind(t, js.CreateJob(f.ctx, job(a, first, f.now)), contracts.KindConflict, "CreateJob with a taken id")
	wantKind(t, js.CreateJob(f.ctx, job("usr-missing", f.id("job"), f.now)), contracts.KindNotFound, "CreateJob for an unknown user")

	got, err := js.GetJob(f.ctx, a, first)
	must(t, err)
	if got.Status != contracts.JobQueued || got.Kind != contracts.JobKindImportPackage || got.Scope != contracts.ScopeDecksWrite ||
		string(got.Input) != `{"uploadId":"m1"}` || got.UserID != a || !got.CreatedAt.Equal(f.now) || got.StartedAt != nil || got.Attempts != 0 {
		t.Errorf("GetJob = %+v", got)
	}
	wantKind(t, func() error { _, err := js.GetJob(f.ctx, b, first); return err }(), contracts.KindNotFound, "GetJob of another user's job")

	// LatestJob finds the user's newest job of a kind with exactly an input.
	if l, err := js.LatestJob(f.ctx, a, contracts.JobKindImportPackage, []byte(`{"uploadId":"m1"}`)); err != nil || l.ID != second {
		t.Errorf("LatestJob = %s, %v; want %s", l.ID, err, second)
	}
	for _, q := range []struct{ user, kind, input string }{
		{b, contracts.JobKindImportPackage, `{"uploadId":"m1"}`}, {a, contracts.JobKindImportPreview, `{"uploadId":"m1"}`}, {a, contracts.JobKindImportPackage, `{"uploadId":"m2"}`},
	} {
		wantKind(t, func() error { _, err := js.LatestJob(f.ctx, q.user, q.kind, []byte(q.input)); return err }(), contracts.KindNotFound, "LatestJob of "+q.kind+" "+q.input)
	}

	// Claims take the oldest runnable job first, once each.
	lease := f.now.Add(30 * time.Second)
	c1, ok, err := js.ClaimJob(f.ctx, "runner-1", f.now, lease)
	must(t, err)
	if !ok || c1.ID != first || c1.Status != contracts.JobRunning || c1.LeaseOwner != "runner-1" || !c1.LeaseUntil.Equal(lease) ||
		c1.Attempts != 1 || c1.StartedAt == nil || !c1.StartedAt.Equal(f.now) {
		t.Fatalf("first ClaimJob = %+v, %v", c1, ok)
	}
	// One job of an account runs at a time: its second waits.
	if j, ok, err := js.ClaimJob(f.ctx, "runner-3", f.now, lease); err != nil || ok {
		t.Fatalf("ClaimJob while the account's first job runs = %+v, %v, %v; want none", j, ok, err)
	}

	// The holder renews and reports progress, with the budget it uses;
	// another runner cannot.
	progress := contracts.JobProgress{Done: 5, Total: 10, Message: "notes", Budget: contracts.JobBudgetUse{
		Limit: contracts.JobBudget{Seconds: 1200, Rows: 5_000_000, Bytes: 2 << 30}, Used: contracts.JobBudget{Seconds: 3, Rows: 1220, Bytes: 61234}}}
	cancel, err := js.RenewLease(f.ctx, first, "runner-1", progress, f.now, lease.Add(time.Minute))
	must(t, err)
	if cancel {
		t.Error("RenewLease reports a cancellation nobody asked for")
	}
	_, err = js.RenewLease(f.ctx, first, "runner-2", contracts.JobProgress{}, f.now, lease)
	wantKind(t, err, contracts.KindConflict, "RenewLease by a runner without the lease")
	got, _ = js.GetJob(f.ctx, a, first)
	if got.Progress != progress {
		t.Errorf("progress after RenewLease = %+v", got.Progress)
	}

	// Cancelling a running job marks it; the runner sees it at its next renewal.
	canceled, err := js.RequestCancel(f.ctx, a, first, f.now)
	must(t, err)
	if canceled.Status != contracts.JobRunning || !canceled.CancelRequested {
		t.Errorf("RequestCancel of a running job = %+v", canceled)
	}
	if cancel, err := js.RenewLease(f.ctx, first, "runner-1", got.Progress, f.now, lease); err != nil || !cancel {
		t.Errorf("RenewLease after a cancel request = %v, %v; want true", cancel, err)
	}
	wantKind(t, func() error { _, err := js.RequestCancel(f.ctx, b, first, f.now); return err }(), contracts.KindNotFound, "RequestCancel of another user's job")

	// Finishing: only the holder, only with a final status.
	wantKind(t, js.FinishJob(f.ctx, first, "runner-1", contracts.JobRunning, nil, "", f.now), contracts.KindInvalid, "FinishJob with a status that is not final")
	wantKind(t, js.FinishJob(f.ctx, first, "runner-2", contracts.JobCanceled, nil, "", f.now), contracts.KindConflict, "FinishJob by a runner without the lease")
	done := f.now.Add(time.Minute)
	must(t, js.FinishJob(f.ctx, first, "runner-1", contracts.JobCanceled, nil, "canceled", done))
	got, _ = js.GetJob(f.ctx, a, first)
	if got.Status != contracts.JobCanceled || got.FinishedAt == nil || !got.FinishedAt.Equal(done) || got.Error != "canceled" || got.Result != nil {
		t.Errorf("job after FinishJob = %+v", got)
	}
	wantKind(t, js.FinishJob(f.ctx, first, "runner-1", contracts.JobSucceeded, nil, "", f.now), contracts.KindConflict, "FinishJob of an ended job")
	if after, err := js.RequestCancel(f.ctx, a, first, f.now); err != nil || after.Status != contracts.JobCanceled {
		t.Errorf("RequestCancel of an ended job = %+v, %v; want it unchanged", after, err)
	}
	c2, ok, err := js.ClaimJob(f.ctx, "runner-2", f.now, lease)
	must(t, err)
	if !ok || c2.ID != second {
		t.Fatalf("ClaimJob once the first ended = %+v, %v; want %s", c2, ok, second)
	}
	if _, ok, err := js.ClaimJob(f.ctx, "runner-3", f.now, lease); err != nil || ok {
		t.Fatalf("ClaimJob with every job leased = %v, %v; want none", ok, err)
	}
	must(t, js.FinishJob(f.ctx, second, "runner-2", contracts.JobSucceeded, []byte(`{"notes":3}`), "", done))
	got, _ = js.GetJob(f.ctx, a, second)
	if got.Status != contracts.JobSucceeded || string(got.Result) != `{"notes":3}` {
		t.Errorf("succeeded job = %+v", got)
	}

	// A queued job cancels at once and is never claimed.
	queued := f.id("job")
	must(t, js.CreateJob(f.ctx, job(b, queued, f.now)))
	after, err := js.RequestCancel(f.ctx, b, queued, f.now)
	must(t, err)
	if after.Status != contracts.JobCanceled || after.FinishedAt == nil {
		t.Errorf("RequestCancel of a queued job = %+v", after)
	}
	if j, ok, err := js.ClaimJob(f.ctx, "runner-1", f.now, lease); err != nil || ok {
		t.Errorf("ClaimJob found %+v (%v, %v); a canceled job is not runnable", j, ok, err)
	}
}

// A running job whose lease lapsed (its runner is gone) is claimed again,
// once, by exactly one of several concurrent claimers; the old runner then
// cannot renew or finish it.
func testJobLeaseExpiry(t *testing.T, f *fixture) {
	u := f.user()
	js := f.s.Jobs()
	id := f.id("job")
	must(t, js.CreateJob(f.ctx, ports.JobRow{Job: contracts.Job{ID: id, Kind: contracts.JobKindImportPackage, CreatedAt: f.now},
		UserID: u, Scope: contracts.ScopeDecksWrite}))
	if _, ok, err := js.ClaimJob(f.ctx, "gone", f.now, f.now.Add(time.Second)); err != nil || !ok {
		t.Fatalf("ClaimJob = %v, %v", ok, err)
	}
	later := f.now.Add(time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var winners []ports.JobRow
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, ok, err := js.ClaimJob(f.ctx, "runner-"+string(rune('a'+i)), later, later.Add(30*time.Second))
			if err != nil && contracts.KindOf(err) != contracts.KindConflict && contracts.KindOf(err) != contracts.KindUnavailable {
				t.Errorf("concurrent ClaimJob: %v", err)
			}
			if ok {
				mu.Lock()
				winners = append(winners, j)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d claimers got the lapsed job; want exactly 1", len(winners))
	}
	if w := winners[0]; w.Attempts != 2 || !w.StartedAt.Equal(f.now) {
		t.Errorf("reclaimed job = %+v; want attempts 2 and the first start kept", w)
	}
	_, err := js.RenewLease(f.ctx, id, "gone", contracts.JobProgress{}, later, later.Add(time.Minute))
	wantKind(t, err, contracts.KindConflict, "RenewLease by the runner whose lease lapsed")
	wantKind(t, js.FinishJob(f.ctx, id, "gone", contracts.JobSucceeded, nil, "", later), contracts.KindConflict, "FinishJob by the runner whose lease lapsed")
	must(t, js.FinishJob(f.ctx, id, winners[0].LeaseOwner, contracts.JobFailed, nil, "boom", later))
}

// Accounts take turns (issue 29 §3): an account that queued many jobs
// has one running at a time, and another account's job runs next, not
// after all of them; of several claimers at once on one account's queue
// one wins; a full queue refuses the next job naming the cap.
func testJobFairness(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	js := f.s.Jobs()
	job := func(user string, at time.Time) string {
		id := f.id("job")
		must(t, js.CreateJob(f.ctx, ports.JobRow{Job: contracts.Job{ID: id, Kind: contracts.JobKindImportPackage, CreatedAt: at},
			UserID: user, Scope: contracts.ScopeDecksWrite}))
		return id
	}
	var mine []string
	for i := range 5 {
		mine = append(mine, job(a, f.now.Add(time.Duration(i)*time.Second)))
	}
	theirs := job(b, f.now.Add(time.Minute)) // queued after all of a's
	lease := f.now.Add(time.Hour)

	// Four claimers at once on a's queue and b's job: one job of each runs.
	var wg sync.WaitGroup
	var mu sync.Mutex
	claimed := map[string]string{} // job → user
	for i := range 4 {
		wg.Go(func() {
			j, ok, err := js.ClaimJob(f.ctx, "runner-"+string(rune('a'+i)), f.now, lease)
			if err != nil && contracts.KindOf(err) != contracts.KindConflict && contracts.KindOf(err) != contracts.KindUnavailable {
				t.Errorf("concurrent ClaimJob: %v", err)
			}
			if ok {
				mu.Lock()
				claimed[j.ID] = j.UserID
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	perUser := map[string]int{}
	for _, u := range claimed {
		perUser[u]++
	}
	if perUser[a] != 1 {
		t.Fatalf("%d jobs of one account running after concurrent claims (%v); want 1", perUser[a], claimed)
	}
	if perUser[b] > 1 {
		t.Fatalf("%d jobs of the other account running; want at most 1", perUser[b])
	}
	for id, u := range claimed {
		if u == a && id != mine[0] {
			t.Errorf("account a's job %s ran before its oldest %s", id, mine[0])
		}
	}
	if perUser[b] == 0 { // a claimer that lost a's job may have found nothing else in the same instant
		if j, ok, err := js.ClaimJob(f.ctx, "runner-e", f.now, lease); err != nil || !ok || j.ID != theirs {
			t.Fatalf("ClaimJob with a's job running = %+v, %v, %v; want b's %s", j, ok, err, theirs)
		}
	}

	// a's first ends; b's ended too: a's next runs, then, with b queuing
	// again, b's new job before a's third (b's last job started earlier).
	must(t, js.FinishJob(f.ctx, mine[0], ownerOf(t, f, a, mine[0]), contracts.JobSucceeded, nil, "", f.now))
	must(t, js.FinishJob(f.ctx, theirs, ownerOf(t, f, b, theirs), contracts.JobSucceeded, nil, "", f.now))
	later := f.now.Add(time.Hour)
	j, ok, err := js.ClaimJob(f.ctx, "runner-a", later, later.Add(time.Hour))
	if err != nil || !ok || j.ID != mine[1] {
		t.Fatalf("ClaimJob after a's first ended = %+v, %v, %v; want %s", j, ok, err, mine[1])
	}
	must(t, js.FinishJob(f.ctx, mine[1], "runner-a", contracts.JobSucceeded, nil, "", later))
	again := job(b, later.Add(time.Minute))
	if j, ok, err := js.ClaimJob(f.ctx, "runner-a", later.Add(2*time.Minute), later.Add(time.Hour)); err != nil || !ok || j.ID != again {
		t.Fatalf("ClaimJob with a's third and b's new job queued = %+v, %v, %v; want b's %s (its turn)", j, ok, err, again)
	}

	// The queue cap: a has 3 queued; fill it up, then one more is refused.
	for range contracts.MaxQueuedJobs - 3 {
		job(a, later)
	}
	err = js.CreateJob(f.ctx, ports.JobRow{Job: contracts.Job{ID: f.id("job"), Kind: contracts.JobKindImportPackage, CreatedAt: later},
		UserID: a, Scope: contracts.ScopeDecksWrite})
	if r, ok := contracts.RefusalOf(err); !ok || r.Limit != contracts.LimitQueuedJobs || !strings.Contains(contracts.MessageOf(err), "20 jobs waiting") {
		t.Fatalf("CreateJob past the queue cap = %v; want rate_limited naming the cap", err)
	}
	job(b, later) // another account's queue is its own
}

// ownerOf is the lease owner of one of user's jobs.
func ownerOf(t *testing.T, f *fixture, user, id string) string {
	t.Helper()
	j, err := f.s.Jobs().GetJob(f.ctx, user, id)
	must(t, err)
	return j.LeaseOwner
}
