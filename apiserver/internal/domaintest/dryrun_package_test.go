package domain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// TestDryRunMatchesRealImport is the dry-run property for
// import_package: a first import (with media to store, a file of the
// wrong bytes and one of a type cards cannot show), the same package
// again (nothing changes), then random edits of it (fields and tags
// edited, a note made to duplicate another's card, cards rescheduled and
// moved, notes added and left out, files added) get from a dry run
// exactly the report the real import then has on the same state; the dry
// run writes nothing (decks, cards, notes, change records, media and
// stages as they were) and previews the changes of the notes and cards
// the account had.
func TestDryRunMatchesRealImport(t *testing.T) { eachStore(t, testDryRunMatchesRealImport) }

func testDryRunMatchesRealImport(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	uid := mustUser(t, ctx)
	pkg := benchPackage(30, 120, 4, 3000)
	pkg.Media = append(pkg.Media,
		ports.AnkiMedia{Name: "fake.png", Open: bodyOf("not a picture at all")},
		ports.AnkiMedia{Name: "notes.pdf", Open: bodyOf("%PDF-1.4")})
	rng := rand.New(rand.NewPCG(31, uint64(len(store))))
	changed := map[contracts.ChangeKind]int{}
	var unchanged, updatedNotes int
	for round := range 8 {
		switch round {
		case 0, 1: // the first import, then the same package again
		default:
			editPackage(rng, &pkg, round)
		}
		e.clock.Advance(time.Minute)
		before := e.importState(ctx, uid)
		dry, dryErr := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{DryRun: true})
		if after := e.importState(ctx, uid); after != before {
			t.Fatalf("round %d: the dry run changed the account:\n%s\nwas\n%s", round, after, before)
		}
		real, realErr := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{})
		if contracts.KindOf(dryErr) != contracts.KindOf(realErr) {
			t.Fatalf("round %d: dry run error %v, real import error %v", round, dryErr, realErr)
		}
		if len(real.Changes) != 0 {
			t.Fatalf("round %d: the real import's report has a preview: %+v", round, real.Changes)
		}
		for _, c := range dry.Changes {
			changed[c.Kind]++
		}
		if (real.NotesUpdated > real.NotesUnchanged) != (len(dry.Changes) > 0) {
			t.Fatalf("round %d: %d notes replaced, %d changes previewed", round, real.NotesUpdated-real.NotesUnchanged, len(dry.Changes))
		}
		if a, b := reportShape(dry), reportShape(real); a != b {
			t.Fatalf("round %d: dry run report\n%s\nreal import report\n%s", round, a, b)
		}
		if round == 1 && (real.NotesUnchanged != real.NotesUpdated || real.NotesUpdated != 30 || real.MediaReused != 4 || len(dry.Changes) != 0) {
			t.Fatalf("the same package again: %s", reportShape(real))
		}
		unchanged += real.NotesUnchanged
		updatedNotes += real.NotesUpdated
		t.Logf("round %d: %s", round, reportShape(real))
	}
	if changed[contracts.ChangeNoteUpdate] == 0 || changed[contracts.ChangeCardSchedule] == 0 || changed[contracts.ChangeCardUpdate] == 0 {
		t.Errorf("the previews show %v: the edits do not cover notes, schedules and moves", changed)
	}
	if unchanged == 0 || unchanged == updatedNotes {
		t.Errorf("notes unchanged %d of %d updated: the rounds do not cover both", unchanged, updatedNotes)
	}
}

// bodyOf opens a package file of the given bytes.
func bodyOf(s string) func(context.Context) (io.ReadCloser, error) {
	return func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte(s))), nil }
}

// editPackage changes a package as a person editing it in Anki between
// two exports might.
func editPackage(rng *rand.Rand, pkg *ports.AnkiPackage, round int) {
	n := len(pkg.Notes)
	for range 1 + rng.IntN(6) {
		i := rng.IntN(n)
		switch rng.IntN(6) {
		case 0:
			pkg.Notes[i].Fields = []string{pkg.Notes[i].Fields[0], fmt.Sprintf("edited %d.%d", round, i)}
		case 1:
			pkg.Notes[i].Tags = []string{"tag" + strconv.Itoa(rng.IntN(4))}
		case 2: // the same text as another note of its deck: that card keeps its text
			j := (i + 2) % n
			pkg.Notes[i].Fields = slices.Clone(pkg.Notes[j].Fields)
		case 3:
			c := &pkg.Cards[i]
			c.State.Due, c.State.Reps = t0.Add(time.Duration(10+rng.IntN(50))*24*time.Hour), c.State.Reps+1
			if c.State.Phase == contracts.PhaseNew {
				c.State.Phase, c.State.Stability, c.State.Difficulty = contracts.PhaseReview, 5, 5
			}
		case 4:
			pkg.Cards[i].DeckKey = 3 - pkg.Cards[i].DeckKey // to the other deck
			pkg.Cards[i].Suspended = !pkg.Cards[i].Suspended
		default:
			key := int64(2_000_000 + round*100 + i)
			pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: key, GUID: fmt.Sprintf("new-%d-%d", round, i), TypeKey: 10,
				Fields: []string{fmt.Sprintf("fresh %d %d", round, i), "back"}})
			pkg.Cards = append(pkg.Cards, ports.AnkiCard{Key: 6_000_000 + key, NoteKey: key, DeckKey: 1, Position: len(pkg.Cards)})
		}
	}
	if round%3 == 0 {
		pkg.Media = append(pkg.Media, ports.AnkiMedia{Name: fmt.Sprintf("round%d.png", round), Open: bodyOf(tinyPNG + strconv.Itoa(round))})
	}
}

// reportShape is a report as a dry run must match it: everything but its
// preview, what was skipped in any order.
func reportShape(r contracts.ImportReport) string {
	r.Changes = nil
	skipped := make([]string, len(r.Skipped))
	for i, s := range r.Skipped {
		skipped[i] = fmt.Sprintf("%s/%s/%d/%s", s.What, s.Reason, s.Count, s.Example)
	}
	slices.Sort(skipped)
	r.Skipped = nil
	b, _ := json.Marshal(r)
	return fmt.Sprintf("%s skipped %q", b, skipped)
}

// importState is what an import's dry run must leave as it was: the
// account's decks, cards and change records (accountState), its notes,
// its media and their bytes, and the import stages.
func (e *env) importState(ctx context.Context, uid string) string {
	e.t.Helper()
	s := e.accountState(ctx)
	u, err := e.store.Media().MediaUsage(ctx, uid, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	types, err := e.store.NoteTypes().ListNoteTypes(ctx, uid, "", 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	stages, err := e.store.ImportStages().StagesToDrop(ctx, "", e.clock.Now().Add(1000*time.Hour), 100)
	if err != nil {
		e.t.Fatal(err)
	}
	return s + fmt.Sprintf("media %+v\nnote types %d\nstages %v\n", u, len(types), stages)
}

// TestImportPackageDryRun: import_package with dryRun reads a small
// upload at once and answers with a finished preview job that was never
// stored (no id; TestImportPreviewJob has a big one),
// its result the report the import then has; no job is queued, the
// upload stays for the real import, no stage or media is left and no
// audit row or change record is written. A dry run of a text upload
// reports the cards it would add.
func TestImportPackageDryRun(t *testing.T) { eachStore(t, testImportPackageDryRun) }

func testImportPackageDryRun(t *testing.T, store string) {
	e := newEnv(t, store)
	pkg := benchPackage(20, 50, 2, 2000)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageReader: fixedReader{sourceOf(pkg)}})
	ctx := e.user("ada@example.com")
	uid := mustUser(t, ctx)
	upload := e.uploaded(ctx, "application/zip", "PK\x03\x04")
	before := e.importState(ctx, uid)
	job, err := e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: upload, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := e.importState(ctx, uid); after != before {
		t.Fatalf("the dry run changed the account:\n%s\nwas\n%s", after, before)
	}
	if job.ID != "" || !job.DryRun || job.Status != contracts.JobSucceeded || job.Kind != contracts.JobKindImportPreview {
		t.Fatalf("dry run job %+v", job)
	}
	var dry contracts.ImportReport
	if err := json.Unmarshal(job.Result, &dry); err != nil {
		t.Fatal(err)
	}
	if j, queued, err := e.store.Jobs().ClaimJob(ctx, "probe", e.clock.Now(), e.clock.Now().Add(time.Minute)); err != nil || queued {
		t.Fatalf("the dry run queued a job: %+v %v", j, err)
	}
	if _, err := e.store.Media().MediaByID(ctx, upload); err != nil {
		t.Fatalf("the dry run released the upload: %v", err)
	}
	if events, err := e.store.Audit().ListAudit(ctx, uid, contracts.AuditFilter{}, "", 10); err != nil || len(events) != 0 {
		t.Fatalf("the dry run wrote audit rows: %+v %v", events, err)
	}
	real, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reportShape(dry), reportShape(real); a != b || real.NotesCreated != 20 || real.Media != 2 {
		t.Fatalf("dry run report\n%s\nreal import report\n%s", a, b)
	}

	d := e.deck(ctx, "Text")
	text := e.uploaded(ctx, "text/tab-separated-values", "one\tuno\ntwo\tdos\none\tuno\n")
	job, err = e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: text, DeckID: d.ID, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var tr contracts.ImportReport
	if err := json.Unmarshal(job.Result, &tr); err != nil || tr.CardsCreated != 2 || len(tr.Skipped) != 1 || tr.Skipped[0].Count != 1 {
		t.Fatalf("text dry run %+v %v", tr, err)
	}
	if got := e.deckCounts(ctx, d.ID); got != 0 {
		t.Fatalf("the text dry run added %d cards", got)
	}
	_, err = e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: "0190d5a0-0000-7000-8000-00000000beef", DryRun: true})
	wantKind(t, err, contracts.KindNotFound)
	if !reflect.DeepEqual(job.Progress, contracts.JobProgress{}) && job.Progress.Done != job.Progress.Total {
		t.Errorf("progress %+v", job.Progress)
	}
}

// deckCounts is how many cards a deck holds.
func (e *env) deckCounts(ctx context.Context, deckID string) int {
	e.t.Helper()
	d, err := e.svc.Decks.GetDeck(ctx, deckID)
	if err != nil {
		e.t.Fatal(err)
	}
	return d.Counts.Total
}
