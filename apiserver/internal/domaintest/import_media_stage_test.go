package domain_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// TestImportMediaStaged checks issue 13 §6 for an import's media: while
// the import stages, the files it stored are neither listed, opened nor
// referable, but count against the quota; an import canceled or failed
// midway leaves no media rows and no blobs, and releases the quota; a
// published import shows them all; a re-import of the same package (§4)
// reuses the files instead of storing them again; and the purge drops the
// staged files of an import that died.
func TestImportMediaStaged(t *testing.T) { eachStore(t, testImportMediaStaged) }

func testImportMediaStaged(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	uid := p.UserID
	const files, size = 12, 3000
	pkg := benchPackage(1500, 3000, files, size)
	md := e.store.Media()
	listed := func() []ports.MediaRow {
		t.Helper()
		rows, err := md.ListMedia(context.Background(), uid, "", 1000)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	staged := func() []ports.MediaRow {
		t.Helper()
		rows, err := md.StagedMedia(context.Background(), uid, "", "", 1000)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	usage := func() int64 {
		t.Helper()
		u, err := md.MediaUsage(context.Background(), uid, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return u.StoredBytes
	}
	// whileStaging checks, when the import stages its notes, that its
	// files are stored and counted but seen by no read, and remembers
	// them.
	var seen []ports.MediaRow
	whileStaging := func() {
		seen = staged()
		if len(seen) != files {
			t.Errorf("staged media while staging: %d, want %d", len(seen), files)
		}
		if n := len(listed()); n != 0 {
			t.Errorf("%d media listed while the import stages", n)
		}
		if u := usage(); u != files*size {
			t.Errorf("quota in use while staging: %d bytes, want %d", u, files*size)
		}
		for _, r := range seen {
			if _, err := md.MediaByID(context.Background(), r.ID); !contracts.IsKind(err, contracts.KindNotFound) {
				t.Errorf("a staged file read by id: %v", err)
			}
			if _, err := e.svc.Media.OpenMedia(ctx, r.ID); !contracts.IsKind(err, contracts.KindNotFound) {
				t.Errorf("a staged file opened: %v", err)
			}
			if got, err := md.UploadedMedia(context.Background(), uid, []string{r.ID}); err != nil || len(got) != 0 {
				t.Errorf("a staged file referable: %v, %v", got, err)
			}
			if _, err := e.blobKey(library.MediaBlobKey(r)); err != nil {
				t.Errorf("the blob of a staged file: %v", err)
			}
		}
	}
	// nothingLeft checks that a failed import left no media, no blobs
	// and no quota in use.
	nothingLeft := func(when string) {
		t.Helper()
		if l, s := listed(), staged(); len(l) != 0 || len(s) != 0 {
			t.Fatalf("%s: %d media listed, %d staged", when, len(l), len(s))
		}
		if u := usage(); u != 0 {
			t.Fatalf("%s: %d bytes of the quota in use", when, u)
		}
		if len(seen) != files {
			t.Fatalf("%s: the import did not stage its media", when)
		}
		for _, r := range seen {
			if _, err := e.blobKey(library.MediaBlobKey(r)); !contracts.IsKind(err, contracts.KindNotFound) {
				t.Fatalf("%s: the blob of a dropped file: %v", when, err)
			}
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	ph := newPhases()
	ph.on["staging notes and cards"] = func() { whileStaging(); cancel() }
	if _, err := e.svc.Import.Apply(cctx, sourceOf(pkg), exchange.ImportOptions{Progress: ph.progress}); err == nil {
		t.Fatal("a canceled import succeeded")
	}
	nothingLeft("canceled while staging")

	seen = nil
	ph = newPhases()
	ph.on["staging notes and cards"] = whileStaging
	ph.on["publishing"] = func() { e.deck(ctx, "Big") }
	_, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{Progress: ph.progress})
	wantKind(t, err, contracts.KindConflict)
	nothingLeft("failed while publishing")
	rep, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := listed()
	if rep.Media != files || len(first) != files || len(staged()) != 0 || usage() != files*size {
		t.Fatalf("published: report %d media, %d listed, %d staged, %d bytes in use", rep.Media, len(first), len(staged()), usage())
	}
	for _, r := range first {
		f, err := e.svc.Media.OpenMedia(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(f.Body)
		f.Body.Close()
		if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != r.SHA256 || len(body) != size {
			t.Fatalf("published file %s: %d bytes", r.Filename, len(body))
		}
	}

	// A re-import reuses the files: same rows, nothing staged, and the
	// notes still reference them.
	rep, err = e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again := listed()
	if rep.Media != files || rep.NotesUpdated != 1500 || len(again) != files || usage() != files*size {
		t.Fatalf("re-import: report %d media, %d notes updated; %d files listed, %d bytes in use", rep.Media, rep.NotesUpdated, len(again), usage())
	}
	for i := range first {
		if again[i].ID != first[i].ID {
			t.Fatalf("re-import replaced file %s by %s", first[i].ID, again[i].ID)
		}
	}
	notes, err := e.store.Notes().GetNotes(ctx, uid, []string{importedNoteID(uid, "bench-0")})
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0].Fields[0], "media:"+fileNamed(first, "img0.png")) {
		t.Fatalf("the re-imported note: %+v (%v)", notes, err)
	}

	// An import that died left a stage with a file: the purge drops both
	// once the stage is untouched for an hour.
	dead := e.stagedFile(ctx, uid, "stage-dead", "", "dead.png")
	if u := usage(); u != files*size+dead.Size {
		t.Fatalf("a dead import's file does not count: %d bytes in use", u)
	}
	e.clock.Advance(2 * time.Hour)
	if n, err := e.svc.Media.CollectUnused(ctx, 100); err != nil || n != 0 {
		t.Fatalf("the collector took %d files (%v); the staged file is the stage's to drop", n, err)
	}
	if n, err := e.svc.Import.PurgeStages(ctx, 100); err != nil || n != 1 {
		t.Fatalf("purge of the dead stage: %d, %v", n, err)
	}
	if s := staged(); len(s) != 0 || usage() != files*size {
		t.Fatalf("after the purge: %d staged files, %d bytes in use", len(s), usage())
	}
	if _, err := e.blobKey(library.MediaBlobKey(dead)); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("the blob of a dead import's file: %v", err)
	}
}

// stagedFile leaves what an import that died leaves: a stage (of job
// jobID, "" for none) holding a stored file, its blob written.
func (e *env) stagedFile(ctx context.Context, uid, stageID, jobID, name string) ports.MediaRow {
	t := e.t
	t.Helper()
	if err := e.store.ImportStages().CreateStage(ctx, ports.ImportStage{ID: stageID, UserID: uid, JobID: jobID}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w, err := e.blobs.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	body := tinyPNG + name // bytes of the file's own
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	now := e.clock.Now()
	m := ports.MediaRow{ID: "m" + stageID, UserID: uid, ContentType: "image/png", Filename: name, MaxBytes: int64(len(body)),
		CreatedAt: now, ExpiresAt: now, UploadedAt: &now, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]),
		CredentialKind: contracts.CredentialLocal, StageID: stageID}
	if err := e.store.Media().CreateMedia(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, library.MediaBlobKey(m)); err != nil {
		t.Fatal(err)
	}
	return m
}

// importedNoteID is the id the importer gives a note of a package GUID.
func importedNoteID(uid, guid string) string {
	sum := sha256.Sum256([]byte(uid + "\x00" + guid))
	return "n" + hex.EncodeToString(sum[:16])
}

// fileNamed returns the id of the row of that file name.
func fileNamed(rows []ports.MediaRow, name string) string {
	for _, r := range rows {
		if r.Filename == name {
			return r.ID
		}
	}
	return "?"
}

// TestReimportEditedPackage: a re-import applies, when it publishes, the
// updates it staged: a note's edited fields and its card's text, a card's
// new scheduling state; a card whose new text duplicates another card of
// its deck keeps its text (counted as skipped); notes the package leaves
// as they are keep their versions.
func TestReimportEditedPackage(t *testing.T) { eachStore(t, testReimportEditedPackage) }

func testReimportEditedPackage(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	uid := p.UserID
	pkg := benchPackage(40, 100, 0, 0)
	if _, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	cardOf := func(guid string) ports.CardRow {
		t.Helper()
		cs, err := e.store.Notes().CardsOfNotes(ctx, uid, []string{importedNoteID(uid, guid)})
		if err != nil || len(cs) != 1 {
			t.Fatalf("cards of %s: %+v, %v", guid, cs, err)
		}
		return cs[0]
	}
	untouched, dupBefore := cardOf("bench-7"), cardOf("bench-2")

	pkg.Notes[1].Fields = []string{"<b>word one</b>", "edited"}
	pkg.Notes[2].Fields = slices.Clone(pkg.Notes[0].Fields) // bench-0 and bench-2 are in deck Big
	due := t0.Add(40 * 24 * time.Hour)
	pkg.Cards[4].State.Due, pkg.Cards[4].State.Reps = due, 9
	rep, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesUpdated != 40 || rep.CardsUpdated != 40 || rep.NotesCreated != 0 || rep.CardsCreated != 0 {
		t.Fatalf("re-import report %+v", rep)
	}
	skipped := false
	for _, s := range rep.Skipped {
		skipped = skipped || (s.What == "card" && strings.Contains(s.Reason, "kept its text") && s.Count == 1)
	}
	if !skipped {
		t.Errorf("the duplicate card was not reported: %+v", rep.Skipped)
	}
	notes, err := e.store.Notes().GetNotes(ctx, uid, []string{importedNoteID(uid, "bench-1")})
	if err != nil || len(notes) != 1 || notes[0].Fields[1] != "edited" || notes[0].Version != 2 {
		t.Fatalf("the edited note: %+v, %v", notes, err)
	}
	if c := cardOf("bench-1"); c.Front != "<b>word one</b>" || c.Back != "edited" || c.Version != 2 {
		t.Errorf("the edited note's card: %q / %q, version %d", c.Front, c.Back, c.Version)
	}
	if c := cardOf("bench-2"); c.Front != dupBefore.Front || c.Hash != dupBefore.Hash {
		t.Errorf("the duplicating card changed its text: %q, was %q", c.Front, dupBefore.Front)
	}
	if c := cardOf("bench-4"); !c.State.Due.Equal(due) || c.State.Reps != 9 {
		t.Errorf("the rescheduled card: %+v", c.State)
	}
	if c := cardOf("bench-7"); c.Version != untouched.Version {
		t.Errorf("an unchanged card was written again: version %d → %d", untouched.Version, c.Version)
	}
	if left := e.stagesLeft(t); len(left) != 0 {
		t.Fatalf("stages left: %v", left)
	}
}

// TestImportJobAbandoned: an import job whose runner died and that then
// ends without running again (failed after its attempts, or canceled)
// drops what it staged, its files and their blobs included, and releases
// its upload, instead of leaving them counted against the quota until the
// purges.
func TestImportJobAbandoned(t *testing.T) { eachStore(t, testImportJobAbandoned) }

func testImportJobAbandoned(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	uid := mustUser(t, ctx)
	d := e.deck(ctx, "Big")
	for i, cancel := range []bool{false, true} {
		upload := e.uploaded(ctx, "text/tab-separated-values", "front\tback\n")
		job, err := e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: upload, DeckID: d.ID})
		if err != nil {
			t.Fatal(err)
		}
		// A runner that dies after staging a file.
		if _, ok, err := e.store.Jobs().ClaimJob(context.Background(), "dead", e.clock.Now(), e.clock.Now().Add(time.Second)); !ok || err != nil {
			t.Fatalf("claim = %v, %v", ok, err)
		}
		file := e.stagedFile(ctx, uid, "stage-"+job.ID, job.ID, "f"+strconv.Itoa(i)+".png")
		if cancel {
			if _, err := e.svc.Jobs.CancelJob(ctx, job.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.clock.Advance(2 * time.Second)
		r := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "alive", MaxAttempts: 1})
		if ran, err := r.RunOnce(context.Background()); !ran || err != nil {
			t.Fatalf("RunOnce = %v, %v", ran, err)
		}
		got, _ := e.svc.Jobs.GetJob(ctx, job.ID)
		if want := map[bool]contracts.JobStatus{false: contracts.JobFailed, true: contracts.JobCanceled}[cancel]; got.Status != want {
			t.Fatalf("job %+v; want %s", got, want)
		}
		if left := e.stagesLeft(t); len(left) != 0 {
			t.Fatalf("stages left: %v", left)
		}
		if rows, err := e.store.Media().StagedMedia(ctx, uid, "", "", 10); err != nil || len(rows) != 0 {
			t.Fatalf("staged files left: %+v, %v", rows, err)
		}
		if _, err := e.blobKey(library.MediaBlobKey(file)); !contracts.IsKind(err, contracts.KindNotFound) {
			t.Fatalf("the staged file's blob: %v", err)
		}
		if _, err := e.store.Media().MediaByID(ctx, upload); !contracts.IsKind(err, contracts.KindNotFound) {
			t.Fatalf("the upload is still stored (%v)", err)
		}
	}
}
