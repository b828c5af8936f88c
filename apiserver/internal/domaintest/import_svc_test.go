package domain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// capture is a package writer that keeps the package the export built,
// so the import can be fed exactly what an export holds.
type capture struct{ pkg *ports.AnkiPackage }

func (c capture) WritePackage(_ context.Context, w io.Writer, p ports.AnkiPackage) error {
	*c.pkg = p
	_, err := w.Write([]byte("captured"))
	return err
}

// exportPackage exports a deck of ctx's user and returns its package.
func (e *env) exportPackage(ctx context.Context, deckID string, pkg *ports.AnkiPackage) ports.AnkiPackage {
	e.t.Helper()
	link, err := e.svc.Export.ExportDeck(ctx, contracts.ExportDeckArgs{DeckID: deckID})
	if err != nil {
		e.t.Fatal(err)
	}
	token := strings.TrimPrefix(link.DownloadURL, baseURL+exchange.ExportPathPrefix)
	if err := e.svc.Export.Download(context.Background(), token, func(string) io.Writer { return io.Discard }); err != nil {
		e.t.Fatal(err)
	}
	return *pkg
}

func newImportEnv(t *testing.T, store string) (*env, *ports.AnkiPackage) {
	e := newEnv(t, store)
	pkg := &ports.AnkiPackage{}
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageWriter: capture{pkg}})
	return e, pkg
}

// fillGerman builds a deck tree with notes of three types, a plain card,
// an image, tags as written, a preset of its own and a review history.
func (e *env) fillGerman(ctx context.Context) contracts.Deck {
	e.t.Helper()
	mediaID := e.uploaded(ctx, "image/png", tinyPNG)
	root := e.deck(ctx, "German")
	vocab := e.deck(ctx, "German::Vocab")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: root.ID, DesiredRetention: ptr(0.85), MaximumIntervalDays: ptr(400)}); err != nil {
		e.t.Fatal(err)
	}
	res, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: vocab.ID, Notes: []contracts.NewNote{
		{NoteType: "Basic (and reversed card)", Fields: map[string]string{"Front": "der **Hund** ![dog](media:" + mediaID + ")", "Back": "the dog"}, Tags: []string{"de", "Animals"}},
		{NoteType: "Basic", Fields: map[string]string{"Front": "die Katze", "Back": "the cat\n\n- small\n- fluffy"}, Tags: []string{"de"}},
	}})
	if err != nil || res.Counts["created"] != 2 {
		e.t.Fatalf("add notes: %+v %v", res, err)
	}
	res, err = e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: root.ID, Notes: []contracts.NewNote{
		{NoteType: "Cloze", Fields: map[string]string{"Text": "{{c1::Der}} Hund {{c2::bellt}}.", "Back Extra": "grammar"}},
	}})
	if err != nil || res.Counts["created"] != 1 {
		e.t.Fatalf("add cloze: %+v %v", res, err)
	}
	e.add(ctx, root.ID, card("Guten Tag", "Good day", "greeting"))
	for day := 0; day < 4; day++ {
		if s := e.start(ctx, vocab.ID, nil, nil); s.Current != nil {
			e.review(ctx, s.ID, s.Current.CardID, contracts.RatingGood)
		}
		e.clock.Advance(36 * time.Hour)
	}
	return root
}

// cardView is a card as the round trip compares it: its deck's name, its
// text and its note's type and fields as rendered (media ids left out),
// and its schedule.
type cardView struct {
	Deck, Front, Back, Tags, Note string
	Suspended                     bool
	State                         contracts.CardState
}

var mediaRef = regexp.MustCompile(`media:[A-Za-z0-9-]+`)

// rendered is card content as the study views show it, media ids left
// out; Markdown's <strong> and <em> are the <b> and <i> Anki HTML has.
func rendered(src string) string {
	html := content.New().Render(mediaRef.ReplaceAllString(src, "media:X"), func(string) string { return "/m" }).HTML
	return strings.NewReplacer("<strong>", "<b>", "</strong>", "</b>", "<em>", "<i>", "</em>", "</i>").Replace(html)
}

func (e *env) cardViews(ctx context.Context) []cardView {
	e.t.Helper()
	uid, _ := contracts.UserID(ctx)
	var out []cardView
	decks, err := e.store.Decks().ListDecks(ctx, uid, "", 100, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, d := range decks {
		rows, err := e.store.Cards().Search(ctx, uid, contracts.CardFilter{DeckID: d.ID}, "", 500, e.clock.Now())
		if err != nil {
			e.t.Fatal(err)
		}
		for _, c := range rows {
			v := cardView{Deck: d.Name, Front: rendered(c.Front), Back: rendered(c.Back),
				Tags: strings.Join(c.Tags, " "), Suspended: c.Suspended, State: c.State}
			if c.NoteID != "" {
				ns, err := e.store.Notes().GetNotes(ctx, uid, []string{c.NoteID})
				if err != nil || len(ns) != 1 {
					e.t.Fatalf("note of card %s: %v", c.ID, err)
				}
				v.Note = ns[0].NoteType + ":"
				for _, f := range ns[0].Fields {
					v.Note += " | " + rendered(f)
				}
			}
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Deck+out[i].Front < out[j].Deck+out[j].Front })
	return out
}

// reviewViews lists a user's review log as the round trip compares it.
func (e *env) reviewViews(ctx context.Context, dueDate bool) []string {
	e.t.Helper()
	uid, _ := contracts.UserID(ctx)
	rows, err := e.store.Reviews().ListReviews(ctx, uid, "", 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		due := r.State.Due.Format(time.RFC3339)
		if dueDate && r.State.Phase == contracts.PhaseReview {
			due = r.State.Due.Format(time.DateOnly)
		}
		out = append(out, r.ReviewedAt.Format(time.RFC3339Nano)+" "+string(r.Rating)+" "+string(r.PrevPhase)+"→"+string(r.State.Phase)+" "+due)
	}
	sort.Strings(out)
	return out
}

// An export imported into another account gives back the same decks,
// presets, notes, cards, schedules, review log and media; importing it
// again updates instead of adding.
func TestImportRoundTrip(t *testing.T) { eachStore(t, testImportRoundTrip) }

func testImportRoundTrip(t *testing.T, store string) {
	e, pkg := newImportEnv(t, store)
	ada := e.user("ada@example.com")
	bob := e.user("bob@example.com")
	root := e.fillGerman(ada)
	p := e.exportPackage(ada, root.ID, pkg)

	rep, err := e.svc.Import.Apply(bob, sourceOf(p), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 4 || rep.CardsCreated != 6 || rep.Media != 1 || rep.Presets != 2 || rep.NotesUpdated != 0 || len(rep.Skipped) != 0 {
		t.Errorf("report %+v; want 4 notes, 6 cards, 1 media file, 2 presets, nothing skipped", rep)
	}
	if rep.Reviews == 0 || rep.Reviews != len(e.reviewViews(ada, false)) {
		t.Errorf("imported %d reviews; ada has %d", rep.Reviews, len(e.reviewViews(ada, false)))
	}
	e.sameCards(t, ada, bob, false)
	bobUID := mustUser(t, bob)
	decks, _ := e.store.Decks().ListDecks(bob, bobUID, "", 10, e.clock.Now())
	for _, d := range decks {
		if d.Name == "German" && (d.Settings.DesiredRetention != 0.85 || d.Settings.MaximumIntervalDays != 400) {
			t.Errorf("German's preset came back as %+v", d.Settings)
		}
	}
	media, err := e.store.Media().ListMedia(bob, bobUID, "", 10)
	if err != nil || len(media) != 1 {
		t.Fatalf("bob's media %v %v", media, err)
	}
	if b, err := e.blob(media[0].ID); err != nil || string(b) != tinyPNG {
		t.Errorf("imported media bytes %q %v", b, err)
	}

	// Importing again updates every note and adds nothing; what the
	// package leaves as it is is not written again (versions stay; the
	// image is the file bob has already, so its note and cards too).
	versions := e.versionsOf(bob)
	again, err := e.svc.Import.Apply(bob, sourceOf(p), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := e.versionsOf(bob)
	kept := 0
	for id, v := range versions {
		if after[id].version != v.version && (strings.HasPrefix(id, "n:") || v.phase != contracts.PhaseNew) {
			t.Errorf("re-importing the unchanged package wrote %s again (version %d → %d)", id, v.version, after[id].version)
		}
		if after[id].version == v.version {
			kept++
		}
	}
	if kept == 0 {
		t.Errorf("versions before %v, after %v: every row was written again", versions, after)
	}
	if again.NotesCreated != 0 || again.CardsCreated != 0 || again.NotesUpdated != 4 || again.CardsUpdated != 6 || again.Reviews != 0 {
		t.Errorf("re-import report %+v; want 4 notes and 6 cards updated, nothing added", again)
	}
	if n := len(e.cardViews(bob)); n != 6 {
		t.Errorf("after re-import bob has %d cards, want 6", n)
	}
	if m, err := e.store.Media().ListMedia(bob, bobUID, "", 10); err != nil || len(m) != 1 || m[0].ID != media[0].ID || again.Media != 1 {
		t.Errorf("bob's media after the re-import %+v (%v), report %d; want the one file he had", m, err, again.Media)
	}
	// The exporting account's own notes are found by their GUID too.
	before := len(e.cardViews(ada))
	own, err := e.svc.Import.Apply(ada, sourceOf(p), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if own.NotesUpdated != 3 || own.NotesCreated != 0 || own.CardsCreated != 0 || len(e.cardViews(ada)) != before {
		t.Errorf("ada re-importing her export: %+v, %d cards (had %d)", own, len(e.cardViews(ada)), before)
	}
}

// A package built in the test: a custom note type, HTML the sanitiser
// trims, a media type cards cannot show, a memory state replayed from the
// log, tags kept as written, and an import under a chosen deck.
func TestImportBuiltPackage(t *testing.T) { eachStore(t, testImportBuiltPackage) }

func testImportBuiltPackage(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	target := e.deck(ctx, "Inbox")
	due := t0.Add(48 * time.Hour)
	last := t0.Add(-24 * time.Hour)
	pkg := ports.AnkiPackage{
		Decks: []ports.AnkiDeck{{Key: 1, Name: "Lang"}, {Key: 2, Name: "Lang::Verbs", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 10, Name: "Vocab (3 fields)", Fields: []string{"Word", "Meaning", "Example"},
			Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Word}}", Back: "{{Meaning}}"}}}},
		Notes: []ports.AnkiNote{{Key: 100, GUID: "g-1", TypeKey: 10, Fields: []string{"<b>gehen</b><script>x()</script>", "to go", "Ich gehe."}, Tags: []string{"Verb", "A1"}}},
		Cards: []ports.AnkiCard{{Key: 1000, NoteKey: 100, DeckKey: 2, Ord: 0, Position: 1,
			State: contracts.CardState{Phase: contracts.PhaseReview, Due: due, ScheduledDays: 3, Reps: 2, LastReview: &last}}},
		Reviews: []ports.AnkiReview{
			{Key: t0.Add(-96 * time.Hour).UnixMilli(), CardKey: 1000, Rating: contracts.RatingGood, PrevPhase: contracts.PhaseNew,
				State: contracts.CardState{Phase: contracts.PhaseReview, Due: t0.Add(-24 * time.Hour)}},
			{Key: last.UnixMilli(), CardKey: 1000, Rating: contracts.RatingGood, PrevPhase: contracts.PhaseReview, PrevInterval: 3,
				State: contracts.CardState{Phase: contracts.PhaseReview, Due: due}},
			{Key: last.UnixMilli() + 1, CardKey: 999, Rating: contracts.RatingGood},
		},
		Media: []ports.AnkiMedia{{Name: "notes.pdf", Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("%PDF")), nil }}},
	}
	rep, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{DeckID: target.ID})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 1 || rep.CardsCreated != 1 || rep.Reviews != 2 || rep.Media != 0 || rep.Dropped["tag:script"] != 1 {
		t.Errorf("report %+v", rep)
	}
	skipped := map[string]int{}
	for _, s := range rep.Skipped {
		skipped[s.What] += s.Count
	}
	if skipped["media"] != 1 || skipped["review"] != 1 || skipped["noteType"] != 0 {
		t.Errorf("skipped %+v; want the pdf and the review of a card not in the package (the note type is kept)", rep.Skipped)
	}
	if !slices.Equal(rep.DecksCreated, []string{"Inbox::Verbs"}) {
		t.Errorf("decks created %v; the package root Lang should become Inbox", rep.DecksCreated)
	}
	uid := mustUser(t, ctx)
	id, err := e.store.Decks().DeckIDByName(ctx, uid, "Inbox::Verbs")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := e.store.Cards().Search(ctx, uid, contracts.CardFilter{DeckID: id}, "", 10, e.clock.Now())
	if err != nil || len(rows) != 1 {
		t.Fatalf("cards %v %v", rows, err)
	}
	c := rows[0]
	if c.Front != "<b>gehen</b>" || c.Back != "to go" || !slices.Equal(c.Tags, []string{"Verb", "A1"}) {
		t.Errorf("card %q / %q tags %v", c.Front, c.Back, c.Tags)
	}
	if c.State.Stability <= 0 || c.State.Difficulty <= 0 || !c.State.Due.Equal(due) || c.State.Phase != contracts.PhaseReview {
		t.Errorf("state %+v; want the package's due and phase with a memory state replayed from the log", c.State)
	}
}

// import_package runs as a job: the submission returns at once (even when
// the request asked for progress), the job imports a large text upload in
// chunks, its report counts what was added and skipped, the upload is
// released and the end is in the audit trail. A package upload without a
// reader is unavailable; another user's upload is not found.
func TestImportPackageJob(t *testing.T) { eachStore(t, testImportPackageJob) }

func testImportPackageJob(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")
	d := e.deck(ctx, "Big")
	var text strings.Builder
	for i := range 2500 {
		text.WriteString("front " + strconv.Itoa(i) + "\tback " + strconv.Itoa(i) + "\n")
	}
	text.WriteString("front 7\tback 7\n") // a duplicate
	upload := e.uploaded(ctx, "text/tab-separated-values", text.String())
	_, err := e.svc.Import.ImportPackage(other, contracts.ImportPackageArgs{UploadID: upload, DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)

	waited := false
	asked := contracts.WithProgress(ctx, func(contracts.JobProgress) { waited = true })
	job, err := e.svc.Import.ImportPackage(asked, contracts.ImportPackageArgs{UploadID: upload, DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != contracts.JobQueued || job.Kind != contracts.JobKindImportPackage || waited {
		t.Fatalf("submission %+v (waited %v); want a queued job returned at once", job, waited)
	}
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("run: %v %v", ran, err)
	}
	got, err := e.svc.Jobs.GetJob(ctx, job.ID)
	if err != nil || got.Status != contracts.JobSucceeded {
		t.Fatalf("job %+v %v", got, err)
	}
	var rep contracts.ImportReport
	if err := json.Unmarshal(got.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.CardsCreated != 2500 || len(rep.Skipped) != 1 || rep.Skipped[0].Count != 1 || got.Progress.Done != got.Progress.Total {
		t.Errorf("report %+v, progress %+v", rep, got.Progress)
	}
	if _, err := e.store.Media().MediaByID(ctx, upload); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the upload is still stored after the import (%v)", err)
	}
	uid := mustUser(t, ctx)
	events, err := e.store.Audit().ListAudit(ctx, uid, contracts.AuditFilter{Tool: contracts.AuditImportDone}, "", 10)
	if err != nil || len(events) != 1 || events[0].Outcome != contracts.AuditOK || !slices.Contains(events[0].AffectedIDs, job.ID) ||
		events[0].OperationID != job.ID { // the job's records' operation id: the audit page's Undo
		t.Errorf("audit of the import's end: %+v %v", events, err)
	}

	zipUp := e.uploaded(ctx, "application/zip", "PK\x03\x04")
	_, err = e.svc.Import.ImportPackage(ctx, contracts.ImportPackageArgs{UploadID: zipUp})
	wantKind(t, err, contracts.KindUnavailable)
}

// sameCards fails unless two accounts hold the same cards, notes and
// schedules (new cards' due times aside) and the same review log.
//
// Through .apkg bytes (viaFile) the format's own precision applies: Anki
// keeps memory states to 4 decimals, and its review log keeps intervals,
// not due times, so a review's due comes back as a date.
func (e *env) sameCards(t *testing.T, ada, bob context.Context, viaFile bool) {
	t.Helper()
	want, got := e.cardViews(ada), e.cardViews(bob)
	// A card without a note comes back as the Basic note the export made of it.
	for i := range want {
		if want[i].Note == "" {
			want[i].Note = "Basic: | " + want[i].Front + " | " + want[i].Back
		}
	}
	if len(got) != len(want) {
		t.Fatalf("bob has %d cards, ada %d:\n%+v\n%+v", len(got), len(want), got, want)
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.State.Phase != contracts.PhaseNew && !w.State.Due.Equal(g.State.Due) || (w.State.LastReview == nil) != (g.State.LastReview == nil) {
			t.Errorf("card %d due/last review: got %+v, want %+v", i, g.State, w.State)
		}
		w.State.Due, g.State.Due, w.State.LastReview, g.State.LastReview = time.Time{}, time.Time{}, nil, nil
		if viaFile && math.Abs(w.State.Stability-g.State.Stability) < 1e-3 && math.Abs(w.State.Difficulty-g.State.Difficulty) < 1e-3 {
			w.State.Stability, w.State.Difficulty = g.State.Stability, g.State.Difficulty
		}
		if g.State.Phase == contracts.PhaseNew {
			w.State, g.State = contracts.CardState{}, contracts.CardState{} // new cards' due is their creation time
		}
		if w != g {
			t.Errorf("card %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if w, g := e.reviewViews(ada, viaFile), e.reviewViews(bob, viaFile); !slices.Equal(w, g) {
		t.Errorf("review log:\n got %v\nwant %v", g, w)
	}
}

// The .apkg bytes an export writes, uploaded by another account and
// imported by an import_package job through the package reader, give back
// the same cards, notes, schedules, review log and media.
func TestImportApkgRoundTrip(t *testing.T) { eachStore(t, testImportApkgRoundTrip) }

func testImportApkgRoundTrip(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"),
		PackageWriter: ankipkg.Writer{TempDir: t.TempDir()}, PackageReader: ankipkg.Reader{TempDir: t.TempDir()}})
	ada := e.user("ada@example.com")
	bob := e.user("bob@example.com")
	root := e.fillGerman(ada)
	link, err := e.svc.Export.ExportDeck(ada, contracts.ExportDeckArgs{DeckID: root.ID})
	if err != nil {
		t.Fatal(err)
	}
	var apkg bytes.Buffer
	token := strings.TrimPrefix(link.DownloadURL, baseURL+exchange.ExportPathPrefix)
	if err := e.svc.Export.Download(context.Background(), token, func(string) io.Writer { return &apkg }); err != nil {
		t.Fatal(err)
	}
	upload := e.uploaded(bob, "application/zip", apkg.String())
	job, err := e.svc.Import.ImportPackage(bob, contracts.ImportPackageArgs{UploadID: upload})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute}).RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("run: %v %v", ran, err)
	}
	got, err := e.svc.Jobs.GetJob(bob, job.ID)
	if err != nil || got.Status != contracts.JobSucceeded {
		t.Fatalf("job %+v %v", got, err)
	}
	var rep contracts.ImportReport
	if err := json.Unmarshal(got.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 4 || rep.CardsCreated != 6 || rep.Media != 1 || rep.Presets != 2 || len(rep.Skipped) != 0 {
		t.Errorf("report %+v", rep)
	}
	e.sameCards(t, ada, bob, true)
}

// rowVersion is a note's or card's version, text and (a card's) phase.
type rowVersion struct {
	version int64
	text    string
	phase   contracts.Phase
}

// versionsOf returns the versions of the user's cards (by card id) and
// notes (by note id, prefixed "n:").
func (e *env) versionsOf(ctx context.Context) map[string]rowVersion {
	e.t.Helper()
	uid, _ := contracts.UserID(ctx)
	out := map[string]rowVersion{}
	rows, err := e.store.Cards().Search(ctx, uid, contracts.CardFilter{}, "", 500, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	var noteIDs []string
	for _, c := range rows {
		out[c.ID] = rowVersion{c.Version, c.Front + "\n" + c.Back, c.State.Phase}
		if c.NoteID != "" {
			noteIDs = append(noteIDs, c.NoteID)
		}
	}
	notes, err := e.store.Notes().GetNotes(ctx, uid, noteIDs)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range notes {
		out["n:"+n.ID] = rowVersion{version: n.Version, text: strings.Join(n.Fields, "\n")}
	}
	return out
}

// Issue 27 §8: an imported history is replayed in the learner's day and
// starts over at a Forget entry (a manual entry that made the card new):
// a card reset and relearned imports with the memory state of the
// ratings after the reset alone.
func TestImportReplayRestartsAtForget(t *testing.T) { eachStore(t, testImportReplayRestartsAtForget) }

func testImportReplayRestartsAtForget(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	at := func(days float64) time.Time { return t0.Add(time.Duration((days - 60) * 24 * float64(time.Hour))) }
	rate := func(days float64, r contracts.Rating, prev contracts.Phase) ports.AnkiReview {
		return ports.AnkiReview{Key: at(days).UnixMilli(), CardKey: 1000, Rating: r, PrevPhase: prev,
			State: contracts.CardState{Phase: contracts.PhaseReview, Due: at(days + 3)}}
	}
	before := []ports.AnkiReview{rate(0, contracts.RatingGood, contracts.PhaseNew), rate(2, contracts.RatingAgain, contracts.PhaseReview),
		rate(2.01, contracts.RatingGood, contracts.PhaseRelearning), rate(8, contracts.RatingHard, contracts.PhaseReview)}
	forget := ports.AnkiReview{Key: at(30).UnixMilli(), CardKey: 1000, Kind: ports.ReviewKindManual, Rating: "manual",
		PrevPhase: contracts.PhaseReview, State: contracts.CardState{Phase: contracts.PhaseNew}}
	after := []ports.AnkiReview{rate(31, contracts.RatingGood, contracts.PhaseNew), rate(34, contracts.RatingGood, contracts.PhaseReview)}
	imported := func(user string, reviews []ports.AnkiReview) contracts.CardState {
		t.Helper()
		ctx := e.user(user)
		last, due := at(34), at(44)
		pkg := ports.AnkiPackage{
			Decks:     []ports.AnkiDeck{{Key: 1, Name: "Forgotten", Settings: contracts.DefaultDeckSettings()}},
			NoteTypes: []ports.AnkiNoteType{{Key: 10, Name: "Basic", Fields: []string{"Front", "Back"}, Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Front}}", Back: "{{Back}}"}}}},
			Notes:     []ports.AnkiNote{{Key: 100, GUID: "g-forget", TypeKey: 10, Fields: []string{"Wort", "word"}}},
			Cards: []ports.AnkiCard{{Key: 1000, NoteKey: 100, DeckKey: 1, State: contracts.CardState{Phase: contracts.PhaseReview, Due: due,
				ScheduledDays: 10, Reps: len(reviews), LastReview: &last}}},
			Reviews: reviews,
		}
		if _, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		uid := mustUser(t, ctx)
		rows, err := e.store.Cards().Search(ctx, uid, contracts.CardFilter{}, "", 10, e.clock.Now())
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: cards %v %v", user, rows, err)
		}
		return rows[0].State
	}
	reset := imported("ada@example.com", append(append(append([]ports.AnkiReview{}, before...), forget), after...))
	fresh := imported("bob@example.com", after)
	whole := imported("cy@example.com", append(append([]ports.AnkiReview{}, before...), after...))
	if reset.Stability <= 0 || math.Abs(reset.Stability-fresh.Stability) > 1e-9 || math.Abs(reset.Difficulty-fresh.Difficulty) > 1e-9 {
		t.Errorf("reset history: S=%v D=%v; the ratings after the reset alone: S=%v D=%v", reset.Stability, reset.Difficulty, fresh.Stability, fresh.Difficulty)
	}
	if math.Abs(whole.Stability-reset.Stability) < 1e-6 {
		t.Errorf("the history without the Forget gives the same stability %v", whole.Stability)
	}
}

// Re-importing one's own exported package creates nothing: the package
// names each file by its media id, and the importer finds the account's
// file with that id and the same bytes (SHA-256 and size) and reuses it,
// so the card showing the image is the same card, not a new one with a
// new media id (issue 31 §9).
func TestReimportOwnExportReusesMedia(t *testing.T) { eachStore(t, testReimportOwnExportReusesMedia) }

func testReimportOwnExportReusesMedia(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"),
		PackageWriter: ankipkg.Writer{TempDir: t.TempDir()}, PackageReader: ankipkg.Reader{TempDir: t.TempDir()}})
	ada := e.user("ada@example.com")
	root := e.fillGerman(ada)
	uid, _ := contracts.UserID(ada)
	mediaBefore, err := e.store.Media().ListMedia(ada, uid, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	link, err := e.svc.Export.ExportDeck(ada, contracts.ExportDeckArgs{DeckID: root.ID})
	if err != nil {
		t.Fatal(err)
	}
	var apkg bytes.Buffer
	token := strings.TrimPrefix(link.DownloadURL, baseURL+exchange.ExportPathPrefix)
	if err := e.svc.Export.Download(context.Background(), token, func(string) io.Writer { return &apkg }); err != nil {
		t.Fatal(err)
	}
	before := e.versionsOf(ada)
	upload := e.uploaded(ada, "application/zip", apkg.String())
	job, err := e.svc.Import.ImportPackage(ada, contracts.ImportPackageArgs{UploadID: upload})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute}).RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("run: %v %v", ran, err)
	}
	got, err := e.svc.Jobs.GetJob(ada, job.ID)
	if err != nil || got.Status != contracts.JobSucceeded {
		t.Fatalf("job %+v %v", got, err)
	}
	var rep contracts.ImportReport
	if err := json.Unmarshal(got.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 0 || rep.CardsCreated != 0 {
		t.Errorf("re-importing the own export created %d notes and %d cards: %+v", rep.NotesCreated, rep.CardsCreated, rep)
	}
	after := e.versionsOf(ada)
	if len(after) != len(before) {
		t.Errorf("%d cards and notes before, %d after", len(before), len(after))
	}
	mediaAfter, err := e.store.Media().ListMedia(ada, uid, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	uploaded := 0
	for _, m := range mediaAfter {
		if m.UploadedAt != nil && m.ContentType != "application/zip" {
			uploaded++
		}
	}
	want := 0
	for _, m := range mediaBefore {
		if m.UploadedAt != nil && m.ContentType != "application/zip" {
			want++
		}
	}
	if want == 0 || uploaded != want {
		t.Errorf("the account holds %d media files after the re-import, %d before", uploaded, want)
	}
}
