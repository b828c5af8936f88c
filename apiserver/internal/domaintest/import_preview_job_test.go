package domain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// slowReader opens its package after delay (or fails when ctx ends
// first), counting the opens: a package too big to read within a call.
type slowReader struct {
	src   ports.PackageSource
	delay time.Duration
	opens *atomic.Int32
}

func (r slowReader) OpenPackage(ctx context.Context, _ io.ReaderAt, _ int64) (ports.PackageSource, error) {
	r.opens.Add(1)
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return r.src, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestImportPreviewJob: a dry run of import_package that needs longer
// than its call gives it (a third of the time left) is handed to a job of
// kind import_preview: the call answers with the queued job, a second dry
// run of the same upload answers with the same job (no second one), the
// job's result is the report (every note of the account replaced) and
// it changes nothing (decks, cards, notes, media, stages, no audit row,
// the upload kept). The next dry run answers with the ended job without
// reading the package again; past contracts.ConfirmTTL, or once the job
// was canceled, the dry run is done anew. The real import's report is the
// preview's. SQLite and Postgres.
func TestImportPreviewJob(t *testing.T) { eachStore(t, testImportPreviewJob) }

func testImportPreviewJob(t *testing.T, store string) {
	e := newEnv(t, store)
	pkg := benchPackage(20, 50, 2, 2000)
	edited := editedPackage(pkg)
	opens := new(atomic.Int32)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"),
		PackageReader: slowReader{src: sourceOf(edited), delay: 300 * time.Millisecond, opens: opens}})
	ctx := e.user("ada@example.com")
	uid := mustUser(t, ctx)
	if _, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	upload := e.uploaded(ctx, "application/zip", "PK\x03\x04")
	before := e.importState(ctx, uid)
	args := contracts.ImportPackageArgs{UploadID: upload, DryRun: true}
	short := func() contracts.Job { // a call with 600 ms left: its dry run gets 200 ms, the reader needs 300
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
		defer cancel()
		j, err := e.svc.Import.ImportPackage(cctx, args)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	job := short()
	if job.ID == "" || !job.DryRun || job.Kind != contracts.JobKindImportPreview || job.Status != contracts.JobQueued {
		t.Fatalf("a dry run too long for its call answered %+v", job)
	}
	if again := short(); again.ID != job.ID || again.Status != contracts.JobQueued || opens.Load() != 1 {
		t.Fatalf("the second dry run answered %+v after %d reads; want the queued job %s, no read", again, opens.Load(), job.ID)
	}
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("RunOnce = %v, %v", ran, err)
	}
	if ran, err := runner.RunOnce(context.Background()); ran || err != nil {
		t.Fatalf("a second job ran (%v, %v): a dry run queued another", ran, err)
	}
	done, err := e.svc.Jobs.GetJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	var rep contracts.ImportReport
	if done.Status != contracts.JobSucceeded || !done.DryRun || json.Unmarshal(done.Result, &rep) != nil ||
		rep.NotesUpdated != 20 || rep.ReplacedNotes() != 20 || rep.MediaReused != 2 || len(rep.Changes) == 0 {
		t.Fatalf("the preview job %+v: %+v", done, rep)
	}
	if after := e.importState(ctx, uid); after != before {
		t.Fatalf("the preview job changed the account:\n%s\nwas\n%s", after, before)
	}
	if _, err := e.store.Media().MediaByID(ctx, upload); err != nil {
		t.Fatalf("the preview job released the upload: %v", err)
	}
	if events, err := e.store.Audit().ListAudit(ctx, uid, contracts.AuditFilter{}, "", 10); err != nil || len(events) != 0 {
		t.Fatalf("the preview job wrote audit rows: %+v %v", events, err)
	}

	// The next dry run (the confirmation gate's, on the import's retry)
	// answers with the ended job, reading nothing.
	if reused := short(); reused.ID != job.ID || reused.Status != contracts.JobSucceeded || !bytes.Equal(reused.Result, done.Result) || opens.Load() != 2 {
		t.Fatalf("the dry run after the job answered %+v after %d reads", reused, opens.Load())
	}
	// Past ConfirmTTL it is done anew, here within its call (no deadline).
	e.clock.Advance(contracts.ConfirmTTL + time.Minute)
	fresh, err := e.svc.Import.ImportPackage(ctx, args)
	if err != nil || fresh.ID != "" || fresh.Status != contracts.JobSucceeded || opens.Load() != 3 {
		t.Fatalf("the dry run past the preview's freshness %+v, %v (%d reads)", fresh, err, opens.Load())
	}
	// A canceled preview is not used again.
	canceled := short()
	if canceled.ID == "" || canceled.ID == job.ID {
		t.Fatalf("a short dry run past the preview's freshness answered %+v", canceled)
	}
	if j, err := e.svc.Jobs.CancelJob(ctx, canceled.ID); err != nil || j.Status != contracts.JobCanceled {
		t.Fatalf("cancel %+v %v", j, err)
	}
	if next := short(); next.ID == "" || next.ID == canceled.ID || next.Status != contracts.JobQueued {
		t.Fatalf("the dry run after a canceled preview answered %+v", next)
	}

	real, err := e.svc.Import.Apply(ctx, sourceOf(edited), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reportShape(rep), reportShape(real); a != b {
		t.Fatalf("preview job report\n%s\nreal import report\n%s", a, b)
	}
}
