package ankipkg_test

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

var t0 = time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)

// samplePackage is a deck with a subdeck, a Basic and a Cloze note, a
// new, a learning, a review and a suspended card, a review log and an image.
func samplePackage() ports.AnkiPackage {
	last := t0.Add(-72 * time.Hour)
	settings := contracts.DefaultDeckSettings()
	settings.DesiredRetention = 0.85
	settings.Weights = make([]float64, 21)
	for i := range settings.Weights {
		settings.Weights[i] = float64(i) / 10
	}
	return ports.AnkiPackage{
		Created: t0.Add(-30 * 24 * time.Hour),
		Decks: []ports.AnkiDeck{
			{Key: 100, Name: "German", Description: "Words", Settings: settings},
			{Key: 101, Name: "German::Verbs", Settings: contracts.DefaultDeckSettings()},
		},
		NoteTypes: []ports.AnkiNoteType{
			{Key: 200, Name: "Basic", Fields: []string{"Front", "Back"}, Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Front}}", Back: "{{FrontSide}}<hr id=answer>{{Back}}"}}},
			{Key: 201, Name: "Cloze", Cloze: true, Fields: []string{"Text", "Back Extra"}, Templates: []ports.AnkiTemplate{{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>{{Back Extra}}"}}},
		},
		Notes: []ports.AnkiNote{
			{Key: 300, GUID: "g-basic", TypeKey: 200, Fields: []string{"<b>der Hund</b>", `the dog <img src="dog.png">`}, Tags: []string{"Animals", "de"}, Modified: t0},
			{Key: 301, GUID: "g-cloze", TypeKey: 201, Fields: []string{"{{c1::Der}} Hund {{c2::bellt}}", ""}, Modified: t0},
		},
		Cards: []ports.AnkiCard{
			{Key: 400, NoteKey: 300, DeckKey: 100, State: contracts.CardState{Phase: contracts.PhaseReview, Due: t0.Add(48 * time.Hour),
				Stability: 12.5, Difficulty: 4.2, ScheduledDays: 5, Reps: 3, Lapses: 1, LastReview: &last}, Modified: t0},
			{Key: 401, NoteKey: 301, DeckKey: 101, Ord: 0, State: contracts.CardState{Phase: contracts.PhaseNew}, Position: 7, Modified: t0},
			{Key: 402, NoteKey: 301, DeckKey: 101, Ord: 1, State: contracts.CardState{Phase: contracts.PhaseLearning, Due: t0.Add(10 * time.Minute),
				Stability: 0.5, Difficulty: 6, Reps: 1, LastReview: &t0}, Suspended: true, Modified: t0},
		},
		Reviews: []ports.AnkiReview{
			{Key: last.UnixMilli(), CardKey: 400, Rating: contracts.RatingGood, PrevPhase: contracts.PhaseReview, PrevInterval: 2,
				State: contracts.CardState{Phase: contracts.PhaseReview, ScheduledDays: 5, Difficulty: 4.2}, DurationMs: 4200},
			{Key: t0.UnixMilli(), CardKey: 402, Rating: contracts.RatingAgain, PrevPhase: contracts.PhaseNew,
				State: contracts.CardState{Phase: contracts.PhaseLearning, Due: t0.Add(10 * time.Minute), LastReview: &t0}},
			{Key: t0.UnixMilli() + 1, CardKey: 400, Kind: ports.ReviewKindManual, Rating: "manual", PrevPhase: contracts.PhaseReview},
		},
		Media: []ports.AnkiMedia{{Name: "dog.png", Open: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("\x89PNG fake")), nil
		}}},
	}
}

// open writes p and opens its collection.
func open(t *testing.T, p ports.AnkiPackage) (*sql.DB, map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(context.Background(), &buf, p); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(r)
		r.Close()
	}
	path := filepath.Join(t.TempDir(), "c.anki2")
	if err := os.WriteFile(path, files["collection.anki2"], 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, files
}

func TestWritePackage(t *testing.T) {
	db, files := open(t, samplePackage())

	var media map[string]string
	if err := json.Unmarshal(files["media"], &media); err != nil || media["0"] != "dog.png" || string(files["0"]) != "\x89PNG fake" {
		t.Errorf("media map %s (%v), file 0 %q", files["media"], err, files["0"])
	}

	var ver int
	var crt int64
	var models, decks, dconf string
	if err := db.QueryRow(`SELECT ver, crt, models, decks, dconf FROM col`).Scan(&ver, &crt, &models, &decks, &dconf); err != nil {
		t.Fatal(err)
	}
	if ver != 11 {
		t.Errorf("schema version %d, want 11", ver)
	}
	var m map[string]struct {
		Name  string `json:"name"`
		Type  int    `json:"type"`
		Flds  []struct{ Name string }
		Tmpls []struct{ Qfmt, Afmt string }
	}
	if err := json.Unmarshal([]byte(models), &m); err != nil {
		t.Fatal(err)
	}
	if c := m["201"]; c.Name != "Cloze" || c.Type != 1 || len(c.Flds) != 2 || c.Tmpls[0].Qfmt != "{{cloze:Text}}" {
		t.Errorf("cloze model = %+v", c)
	}
	var d map[string]struct {
		Name string `json:"name"`
		Conf int64  `json:"conf"`
	}
	_ = json.Unmarshal([]byte(decks), &d)
	if d["101"].Name != "German::Verbs" || d["1"].Name != "Default" {
		t.Errorf("decks = %+v", d)
	}
	var c map[string]struct {
		DesiredRetention float64   `json:"desiredRetention"`
		Params           []float64 `json:"fsrsParams6"`
		New              struct{ PerDay int }
	}
	_ = json.Unmarshal([]byte(dconf), &c)
	if p := c[itoa(d["100"].Conf)]; p.DesiredRetention != 0.85 || len(p.Params) != 21 || p.Params[20] != 2 {
		t.Errorf("preset of German = %+v", p)
	}

	var flds, tags string
	var mid int64
	if err := db.QueryRow(`SELECT flds, tags, mid FROM notes WHERE guid = 'g-basic'`).Scan(&flds, &tags, &mid); err != nil {
		t.Fatal(err)
	}
	if flds != "<b>der Hund</b>\x1fthe dog <img src=\"dog.png\">" || tags != " Animals de " || mid != 200 {
		t.Errorf("basic note = %q %q %d", flds, tags, mid)
	}

	type card struct {
		typ, queue, ivl, factor, reps, lapses int
		due                                   int64
		data                                  string
	}
	cards := map[int64]card{}
	rows, err := db.Query(`SELECT id, type, queue, due, ivl, factor, reps, lapses, data FROM cards`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var k card
		if err := rows.Scan(&id, &k.typ, &k.queue, &k.due, &k.ivl, &k.factor, &k.reps, &k.lapses, &k.data); err != nil {
			t.Fatal(err)
		}
		cards[id] = k
	}
	crtDay := time.Unix(crt, 0).UTC()
	review := cards[400]
	if review.typ != 2 || review.queue != 2 || review.ivl != 5 || review.reps != 3 || review.lapses != 1 ||
		crtDay.Add(time.Duration(review.due)*24*time.Hour).Format("2006-01-02") != t0.Add(48*time.Hour).Format("2006-01-02") {
		t.Errorf("review card = %+v (crt %v)", review, crtDay)
	}
	var mem struct{ S, D float64 }
	if json.Unmarshal([]byte(review.data), &mem) != nil || mem.S != 12.5 || mem.D != 4.2 {
		t.Errorf("review card memory state %q", review.data)
	}
	if n := cards[401]; n.typ != 0 || n.queue != 0 || n.due != 7 {
		t.Errorf("new card = %+v", n)
	}
	if l := cards[402]; l.typ != 1 || l.queue != -1 || l.due != t0.Add(10*time.Minute).Unix() {
		t.Errorf("suspended learning card = %+v", l)
	}

	var revlog [][4]int
	rows, err = db.Query(`SELECT ease, type, ivl, time FROM revlog ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r [4]int
		_ = rows.Scan(&r[0], &r[1], &r[2], &r[3])
		revlog = append(revlog, r)
	}
	want := [][4]int{{3, 1, 5, 4200}, {1, 0, -600, 0}, {0, 4, 0, 0}}
	if len(revlog) != 3 || revlog[0] != want[0] || revlog[1] != want[1] || revlog[2] != want[2] {
		t.Errorf("revlog = %v, want %v", revlog, want)
	}
}

func TestWritePackageRefusesDanglingKeys(t *testing.T) {
	p := samplePackage()
	p.Cards[0].DeckKey = 999
	err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(context.Background(), io.Discard, p)
	if contracts.KindOf(err) != contracts.KindInvalid {
		t.Errorf("a card in a missing deck: %v, want invalid", err)
	}
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }
