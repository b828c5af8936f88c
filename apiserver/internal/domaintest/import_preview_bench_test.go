package domain_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// benchEnvInt reads a positive count from the environment, else def.
func benchEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

// editedPackage is p with every note's second field changed, so that a
// re-import updates every note the account has.
func editedPackage(p ports.AnkiPackage) ports.AnkiPackage {
	p.Notes = slices.Clone(p.Notes)
	for i := range p.Notes {
		f := slices.Clone(p.Notes[i].Fields)
		f[1] += " (edited)"
		p.Notes[i].Fields = f
	}
	return p
}

// BenchmarkImportPackagePreview measures import_package's dry run of a
// big package into an account that already holds its notes (every note
// edited, so every note's update is planned and compared): by default
// 20,000 notes, 100,000 review-log rows and 200 MB of incompressible
// media (TAKHTABUSH_BENCH_PREVIEW_NOTES, _REVIEWS and _MEDIA_MB change
// them), written by our package writer outside the timing and imported
// once for real (untimed), on SQLite in a file and on Postgres
// (TAKHTABUSH_TEST_POSTGRES_URL). preview-s is the dry run's planning
// (ImportOptions.DryRun, what a tool call ran in-line before, within its
// 30 s); then the package is uploaded and import_package's dry run is
// called as a tool call is, with 30 s: call-s is how long the call took,
// job 1 when it handed the preview to an import_preview job, and job-s
// how long that job then took on a runner.
//
//	make bench-import-preview
func BenchmarkImportPackagePreview(b *testing.B) {
	notes := benchEnvInt("TAKHTABUSH_BENCH_PREVIEW_NOTES", 20000)
	reviews := benchEnvInt("TAKHTABUSH_BENCH_PREVIEW_REVIEWS", 5*notes)
	const mediaSize = 500_000
	files := benchEnvInt("TAKHTABUSH_BENCH_PREVIEW_MEDIA_MB", 200) * 1_000_000 / mediaSize
	pkg := benchPackage(notes, reviews, files, mediaSize)
	first, second := writeApkg(b, pkg), writeApkg(b, editedPackage(pkg))
	for _, store := range []string{onSQLite, onPostgres} {
		b.Run(store, func(b *testing.B) {
			if store == onPostgres && os.Getenv(pgURLEnv) == "" {
				b.Skip(pgURLEnv + " not set")
			}
			for b.Loop() {
				b.StopTimer()
				e := newEnv(b, store)
				if store == onSQLite {
					file, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { file.Close() })
					e.store = file
				}
				e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: baseURL, MediaQuotaBytes: 1 << 40,
					URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageReader: ankipkg.Reader{TempDir: b.TempDir()}})
				ctx := e.user("ada@example.com")
				start := time.Now()
				if rep, err := importPath(ctx, e, first, exchange.ImportOptions{}); err != nil || rep.NotesCreated != notes {
					b.Fatalf("first import %+v: %v", rep, err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "import-s")
				e.clock.Advance(time.Minute)
				b.StartTimer()
				start = time.Now()
				cpu0 := cpuTime()
				rep, err := importPath(ctx, e, second, exchange.ImportOptions{DryRun: true})
				b.StopTimer()
				b.ReportMetric(time.Since(start).Seconds(), "preview-s")
				b.ReportMetric((cpuTime() - cpu0).Seconds(), "preview-cpu-s")
				if err != nil {
					b.Fatal(err)
				}
				if rep.NotesUpdated != notes || rep.ReplacedNotes() != notes || rep.Media != files || rep.MediaReused != files {
					b.Fatalf("preview %+v", rep)
				}
				call, job, took := previewCall(b, ctx, e, second)
				b.ReportMetric(call.Seconds(), "call-s")
				b.ReportMetric(float64(job), "job")
				b.ReportMetric(took.Seconds(), "job-s")
				b.StartTimer()
			}
		})
	}
}

// previewCall uploads the package at path and calls import_package's dry
// run as a tool call does (30 s), then, when the call handed the preview
// to a job, runs the job: how long the call took, 1 when it answered with
// a job, and how long the job took.
func previewCall(b *testing.B, ctx context.Context, e *env, path string) (call time.Duration, job int, took time.Duration) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	in, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "application/zip", Bytes: st.Size(), Filename: "big.apkg"})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.svc.Media.AcceptUpload(context.Background(), in.MediaID, token(in), "application/zip", f); err != nil {
		b.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	j, err := e.svc.Import.ImportPackage(cctx, contracts.ImportPackageArgs{UploadID: in.MediaID, DryRun: true})
	call = time.Since(start)
	if err != nil {
		b.Fatalf("dry run call after %s: %v", call, err)
	}
	if j.ID == "" {
		return call, 0, 0
	}
	start = time.Now()
	if ran, err := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "bench", Lease: time.Minute}).RunOnce(context.Background()); !ran || err != nil {
		b.Fatalf("RunOnce = %v, %v", ran, err)
	}
	took = time.Since(start)
	if j, err = e.svc.Jobs.GetJob(ctx, j.ID); err != nil || j.Status != contracts.JobSucceeded {
		b.Fatalf("preview job %+v: %v", j, err)
	}
	return call, 1, took
}

// importPath imports (or previews) the package written at path.
func importPath(ctx context.Context, e *env, path string, opts exchange.ImportOptions) (contracts.ImportReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return contracts.ImportReport{}, err
	}
	return importFile(ctx, e, f, st.Size(), opts)
}
