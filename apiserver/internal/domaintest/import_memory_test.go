package domain_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// TestImportMemoryBounded checks issue 13 §9's "memory bounded by the
// largest media file, not the package": importing an .apkg (through the
// package reader, on SQLite in a file) of four times the notes, cards and
// review log keeps the peak Go heap within 1.5 times the smaller one's,
// and so does importing the package again with every note edited (each
// note and card updated, none added). Before the reader streamed, the peak grew with the package
// (about 4×); before a re-import staged the updates of the notes the
// account had, a re-import's grew with them (about 2.5×).
func TestImportMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports two packages of thousands of notes, twice each")
	}
	const small, factor = 2500, 1.5
	a, ra := importPeakHeap(t, small)
	b, rb := importPeakHeap(t, 4*small)
	for _, c := range []struct {
		what   string
		sm, lg uint64
	}{{"first import", a, b}, {"re-import", ra, rb}} {
		ratio := float64(c.lg) / float64(c.sm)
		t.Logf("%s peak heap: %d notes %.1f MiB, %d notes %.1f MiB (×%.2f)", c.what, small, float64(c.sm)/(1<<20), 4*small, float64(c.lg)/(1<<20), ratio)
		if ratio > factor {
			t.Errorf("the %s's peak heap grew ×%.2f for a package four times larger; want at most ×%.1f", c.what, ratio, factor)
		}
	}
}

// importPeakHeap imports a generated package of notes notes (one card
// each) and five reviews a note for a new user, then again with every
// note edited, returning the peak Go heap in use during the first import
// and during the second.
func importPeakHeap(t *testing.T, notes int) (first, again uint64) {
	t.Helper()
	e := newEnv(t, onSQLite)
	file, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mem.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	e.store = file
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: baseURL, MediaQuotaBytes: 1 << 40})
	ctx := e.user("ada@example.com")
	pkg := benchPackage(notes, 5*notes, 0, 0)
	path := writeApkg(t, pkg)
	for i := range pkg.Notes { // the package again, every note edited
		pkg.Notes[i].Fields = []string{pkg.Notes[i].Fields[0] + " (edited)", pkg.Notes[i].Fields[1]}
	}
	edited := writeApkg(t, pkg)
	peak := func(reimport bool) uint64 {
		path := path
		if reimport {
			path = edited
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		heap := sampleHeap()
		rep, err := importFile(ctx, e, f, st.Size(), exchange.ImportOptions{})
		peak := heap()
		if err != nil {
			t.Fatal(err)
		}
		if (!reimport && (rep.NotesCreated != notes || rep.Reviews != 5*notes)) || (reimport && (rep.NotesUpdated != notes || rep.CardsUpdated != notes || rep.NotesCreated != 0 || rep.Reviews != 0)) {
			t.Fatalf("report %+v", rep)
		}
		return peak
	}
	return peak(false), peak(true)
}

// writeApkg writes p to a file with our package writer.
func writeApkg(t testing.TB, p ports.AnkiPackage) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "package.apkg")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(context.Background(), out, p); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// importFile imports the package in f as an import job does: opened by
// the package reader, applied a chunk at a time.
func importFile(ctx context.Context, e *env, f *os.File, size int64, opts exchange.ImportOptions) (contracts.ImportReport, error) {
	src, err := (ankipkg.Reader{TempDir: e.t.TempDir()}).OpenPackage(ctx, f, size)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	defer src.Close()
	return e.svc.Import.Apply(ctx, src, opts)
}
