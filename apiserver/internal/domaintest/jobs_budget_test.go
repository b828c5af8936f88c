package domain_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// fixedReader opens every upload as one in-memory package.
type fixedReader struct{ src ports.PackageSource }

func (f fixedReader) OpenPackage(context.Context, io.ReaderAt, int64) (ports.PackageSource, error) {
	return f.src, nil
}

// stallingSource is a package whose notes never come: its Chunks waits
// until the import is stopped (a package that keeps its reader busy).
type stallingSource struct{ memSource }

func (stallingSource) Chunks(ctx context.Context, _ int, _ func(ports.AnkiChunk) error) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestJobBudgets checks issue 29 §3.2 and §4: an import job is charged
// per item it handles (each media file, note, card and review) and per
// byte it reads or stores, and stops inside the job, not at the runner's
// 30-minute timeout, when it goes over any limit of its kind's budget
// (items, bytes, time): the job fails fast with a reason naming the limit
// and how to split the package, and nothing of the package is published
// (no deck, no card, no media; the stage and its staged files are gone).
// get_job's progress shows the budget and its use, while the job runs
// and after it ends.
func TestJobBudgets(t *testing.T) { eachStore(t, testJobBudgets) }

func testJobBudgets(t *testing.T, store string) {
	const files, size = 20, 3000
	pkg := benchPackage(300, 600, files, size)
	items := int64(files + 300 + 300 + 600) // media files, notes, cards, reviews
	cases := []struct {
		name   string
		src    ports.PackageSource
		limit  contracts.JobBudget
		reason string
	}{
		// 10 items: the 11th media file is over; the notes never start.
		{"items (media files)", sourceOf(pkg), contracts.JobBudget{Seconds: 60, Rows: 10, Bytes: 1 << 30}, "more than its budget of 10 items"},
		// All media files fit; the first chunk of notes does not.
		{"items (notes, cards, reviews)", sourceOf(pkg), contracts.JobBudget{Seconds: 60, Rows: files + 100, Bytes: 1 << 30}, "more than its budget of 120 items"},
		// 20,000 bytes: the 7th file of 3,000 bytes is over.
		{"bytes", sourceOf(pkg), contracts.JobBudget{Seconds: 60, Rows: 1_000_000, Bytes: 20_000}, "more than its budget of 19.5 KiB (20000 bytes)"},
		// One second: the package whose notes never come is stopped.
		{"time", stallingSource{memSource{pkg}}, contracts.JobBudget{Seconds: 1, Rows: 1_000_000, Bytes: 1 << 30}, "ran longer than its time budget of 1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, store)
			e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
				BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageReader: fixedReader{tc.src}})
			ctx := e.user("ada@example.com")
			uid := mustUser(t, ctx)
			upload := e.uploaded(ctx, "application/zip", "PK\x03\x04")
			job, err := e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: upload})
			if err != nil {
				t.Fatal(err)
			}
			runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute, Heartbeat: 50 * time.Millisecond,
				Budgets: map[string]contracts.JobBudget{contracts.JobKindImportPackage: tc.limit}})
			// While it runs, get_job shows the budget it is using.
			var running contracts.JobProgress
			watching := make(chan struct{})
			go func() {
				defer close(watching)
				for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					got, err := e.svc.Jobs.GetJob(ctx, job.ID)
					if err != nil || got.Status.Final() {
						return
					}
					if got.Progress.Budget.Limit != (contracts.JobBudget{}) {
						running = got.Progress
						return
					}
				}
			}()
			start := time.Now()
			if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
				t.Fatalf("run: %v %v", ran, err)
			}
			took := time.Since(start)
			<-watching
			got, err := e.svc.Jobs.GetJob(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != contracts.JobFailed || !strings.Contains(got.Error, tc.reason) ||
				!strings.Contains(got.Error, "nothing of the package was imported") || !strings.Contains(got.Error, "export each subdeck as its own package") {
				t.Fatalf("job %s: %q; want failed, saying %q and how to split the package", got.Status, got.Error, tc.reason)
			}
			if limit := time.Duration(tc.limit.Seconds)*time.Second + 2*time.Second; took > limit {
				t.Errorf("the job took %s to fail; want at most %s", took, limit)
			}
			if b := got.Progress.Budget; b.Limit != tc.limit || (tc.name != "time" && b.Used.Rows+b.Used.Bytes == 0) ||
				(tc.limit.Rows < 1000 && b.Used.Rows <= tc.limit.Rows) || (tc.limit.Bytes < 1<<20 && b.Used.Bytes <= tc.limit.Bytes) {
				t.Errorf("the failed job's budget in its progress: %+v; want the limit %+v and the use over it", b, tc.limit)
			}
			if tc.name == "time" && running.Budget.Limit != tc.limit {
				t.Errorf("progress while the job ran: %+v; want the budget %+v", running, tc.limit)
			}
			// Nothing of the package was published or is left staged.
			if decks, err := e.store.Decks().ListDecks(ctx, uid, "", 10, e.clock.Now()); err != nil || len(decks) != 0 {
				t.Errorf("decks after the failed import: %+v, %v", decks, err)
			}
			if rows, err := e.store.Media().ListMedia(ctx, uid, "", 100); err != nil || len(rows) != 0 {
				t.Errorf("media after the failed import: %d, %v", len(rows), err)
			}
			if rows, err := e.store.Media().StagedMedia(ctx, uid, "", "", 100); err != nil || len(rows) != 0 {
				t.Errorf("staged media after the failed import: %d, %v", len(rows), err)
			}
			if left := e.stagesLeft(t); len(left) != 0 {
				t.Errorf("stages left: %v", left)
			}
			if _, err := e.store.Media().MediaByID(ctx, upload); !contracts.IsKind(err, contracts.KindNotFound) {
				t.Errorf("the upload of the failed import is still stored (%v)", err)
			}
		})
	}

	// Within its budget the import succeeds, and its progress shows what
	// it used: every item charged once, every media byte read.
	t.Run("within", func(t *testing.T) {
		e := newEnv(t, store)
		e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
			BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageReader: fixedReader{sourceOf(pkg)}})
		ctx := e.user("ada@example.com")
		job, err := e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: e.uploaded(ctx, "application/zip", "PK\x03\x04")})
		if err != nil {
			t.Fatal(err)
		}
		if ran, err := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute}).RunOnce(context.Background()); !ran || err != nil {
			t.Fatalf("run: %v %v", ran, err)
		}
		got, err := e.svc.Jobs.GetJob(ctx, job.ID)
		if err != nil || got.Status != contracts.JobSucceeded {
			t.Fatalf("job %+v %v", got, err)
		}
		b := got.Progress.Budget
		if b.Limit != exchange.ImportBudget.Limit || b.Used.Rows != items || b.Used.Bytes < files*size || b.Used.Bytes > files*size+100_000 {
			t.Errorf("budget in the finished job's progress: %+v; want the import budget, %d items and %d bytes of media and the notes' text", b, items, files*size)
		}
	})
}
