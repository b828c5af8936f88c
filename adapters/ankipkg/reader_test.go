package ankipkg_test

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// write writes p with our writer.
func write(t testing.TB, p ports.AnkiPackage) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(context.Background(), &buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// read reads a package with default limits.
func read(t testing.TB, b []byte) ports.AnkiPackage {
	t.Helper()
	p, err := (ankipkg.Reader{TempDir: t.TempDir()}).ReadPackage(context.Background(), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mediaBytes reads every media file of p by name.
func mediaBytes(t testing.TB, p ports.AnkiPackage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range p.Media {
		rc, err := m.Open(context.Background())
		if err != nil {
			t.Fatalf("media %s: %v", m.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("media %s: %v", m.Name, err)
		}
		out[m.Name] = string(b)
	}
	return out
}

// TestRoundTrip writes the sample package with our writer and reads it
// back: every record the schema-11 format carries comes back equal; what
// it cannot carry (a review's exact due hour, a new card's due) is
// checked in the form the format keeps.
func TestRoundTrip(t *testing.T) {
	in := samplePackage()
	out := read(t, write(t, in))

	if !out.Created.Equal(time.Date(2026, 10, 2, 4, 0, 0, 0, time.UTC)) {
		t.Errorf("created %v, want the collection's day start", out.Created)
	}
	// Decks: both, without Anki's unused Default deck; steps the writer
	// filled in for an unset preset come back as written.
	if len(out.Decks) != 2 {
		t.Fatalf("decks %+v", out.Decks)
	}
	want0 := in.Decks[0]
	want0.Settings.LearningSteps, want0.Settings.RelearningSteps = []float64{1, 10}, []float64{10}
	want0.Settings.NewOrder = contracts.NewOrderAdded
	if !reflect.DeepEqual(out.Decks[0], want0) {
		t.Errorf("deck 0 = %+v\nwant %+v", out.Decks[0], want0)
	}
	if d := out.Decks[1]; d.Key != 101 || d.Name != "German::Verbs" || d.Settings.DesiredRetention != contracts.DefaultDesiredRetention || d.Settings.Weights != nil {
		t.Errorf("deck 1 = %+v", d)
	}
	// Note types: the writer gives a type without CSS Anki's default.
	if len(out.NoteTypes) != 2 || out.NoteTypes[0].CSS == "" ||
		!reflect.DeepEqual(out.NoteTypes[0], withCSS(in.NoteTypes[0], out.NoteTypes[0].CSS)) ||
		!reflect.DeepEqual(out.NoteTypes[1], withCSS(in.NoteTypes[1], out.NoteTypes[1].CSS)) {
		t.Errorf("note types = %+v\nwant %+v", out.NoteTypes, in.NoteTypes)
	}
	if !reflect.DeepEqual(out.Notes, in.Notes) {
		t.Errorf("notes = %+v\nwant %+v", out.Notes, in.Notes)
	}

	if len(out.Cards) != 3 {
		t.Fatalf("cards = %+v", out.Cards)
	}
	rev, nw, lrn := out.Cards[0], out.Cards[1], out.Cards[2]
	last := in.Cards[0].State.LastReview
	wantRev := in.Cards[0]
	wantRev.State.Due = time.Date(2026, 11, 3, 4, 0, 0, 0, time.UTC) // the day start of the due day
	if !reflect.DeepEqual(rev, wantRev) || !rev.State.LastReview.Equal(*last) {
		t.Errorf("review card = %+v\nwant %+v", rev, wantRev)
	}
	if !reflect.DeepEqual(nw, in.Cards[1]) {
		t.Errorf("new card = %+v\nwant %+v", nw, in.Cards[1])
	}
	wantLrn := in.Cards[2]
	wantLrn.State.Step = 1 // the writer leaves one of the preset's two steps
	if !reflect.DeepEqual(lrn, wantLrn) {
		t.Errorf("learning card = %+v\nwant %+v", lrn, wantLrn)
	}

	if len(out.Reviews) != 3 {
		t.Fatalf("reviews = %+v", out.Reviews)
	}
	r0 := out.Reviews[0]
	if r0.Key != in.Reviews[0].Key || r0.CardKey != 400 || r0.Rating != contracts.RatingGood || r0.Kind != "" || r0.PrevPhase != contracts.PhaseReview ||
		r0.PrevInterval != 2 || r0.DurationMs != 4200 || r0.State.Phase != contracts.PhaseReview || r0.State.ScheduledDays != 5 || r0.State.Difficulty != 4.2 {
		t.Errorf("review 0 = %+v", r0)
	}
	r1 := out.Reviews[1]
	if r1.Rating != contracts.RatingAgain || r1.PrevPhase != contracts.PhaseNew || r1.State.Phase != contracts.PhaseLearning || !r1.State.Due.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("review 1 = %+v", r1)
	}
	if r2 := out.Reviews[2]; r2.Kind != ports.ReviewKindManual || r2.Rating != "manual" || r2.CardKey != 400 {
		t.Errorf("review 2 = %+v", r2)
	}

	if got := mediaBytes(t, out); len(got) != 1 || got["dog.png"] != "\x89PNG fake" {
		t.Errorf("media = %q", got)
	}
}

func withCSS(t ports.AnkiNoteType, css string) ports.AnkiNoteType { t.CSS = css; return t }
