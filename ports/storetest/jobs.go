package storetest

import (
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

	// Claims take the oldest runnable job first, once each.
	lease := f.now.Add(30 * time.Second)
	c1, ok, err := js.ClaimJob(f.ctx, "runner-1", f.now, lease)
	must(t, err)
	if !ok || c1.ID != first || c1.Status != contracts.JobRunning || c1.LeaseOwner != "runner-1" || !c1.LeaseUntil.Equal(lease) ||
		c1.Attempts != 1 || c1.StartedAt == nil || !c1.StartedAt.Equal(f.now) {
		t.Fatalf("first ClaimJob = %+v, %v", c1, ok)
	}
	c2, ok, err := js.ClaimJob(f.ctx, "runner-2", f.now, lease)
	must(t, err)
	if !ok || c2.ID != second {
		t.Fatalf("second ClaimJob = %+v, %v; want %s", c2, ok, second)
	}
	if _, ok, err := js.ClaimJob(f.ctx, "runner-3", f.now, lease); err != nil || ok {
		t.Fatalf("ClaimJob with every job leased = %v, %v; want none", ok, err)
	}

	// The holder renews and reports progress; another runner cannot.
	cancel, err := js.RenewLease(f.ctx, first, "runner-1", contracts.JobProgress{Done: 5, Total: 10, Message: "notes"}, f.now, lease.Add(time.Minute))
	must(t, err)
	if cancel {
		t.Error("RenewLease reports a cancellation nobody asked for")
	}
	_, err = js.RenewLease(f.ctx, first, "runner-2", contracts.JobProgress{}, f.now, lease)
	wantKind(t, err, contracts.KindConflict, "RenewLease by a runner without the lease")
	got, _ = js.GetJob(f.ctx, a, first)
	if got.Progress != (contracts.JobProgress{Done: 5, Total: 10, Message: "notes"}) {
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
