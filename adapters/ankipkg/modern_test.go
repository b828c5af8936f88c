package ankipkg_test

import (
	"bytes"
	"crypto/sha1"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"
	"modernc.org/sqlite"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Anki's schema-18 tables declare the unicase collation; the fixture's
// writer (the test's shared driver) needs it to create them. The reader
// registers it on a driver of its own.
func init() {
	sqlite.MustRegisterCollationUtf8("unicase", func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
}

// schema18 is the collection schema of collection.anki21b, as Anki
// (rslib/src/storage/schema11.sql upgraded to 18) lays it out.
const schema18 = `
CREATE TABLE col (id integer PRIMARY KEY, crt integer NOT NULL, mod integer NOT NULL, scm integer NOT NULL, ver integer NOT NULL,
  dty integer NOT NULL, usn integer NOT NULL, ls integer NOT NULL, conf text NOT NULL, models text NOT NULL, decks text NOT NULL,
  dconf text NOT NULL, tags text NOT NULL);
CREATE TABLE notes (id integer PRIMARY KEY, guid text NOT NULL, mid integer NOT NULL, mod integer NOT NULL, usn integer NOT NULL,
  tags text NOT NULL, flds text NOT NULL, sfld integer NOT NULL, csum integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
CREATE TABLE cards (id integer PRIMARY KEY, nid integer NOT NULL, did integer NOT NULL, ord integer NOT NULL, mod integer NOT NULL,
  usn integer NOT NULL, type integer NOT NULL, queue integer NOT NULL, due integer NOT NULL, ivl integer NOT NULL,
  factor integer NOT NULL, reps integer NOT NULL, lapses integer NOT NULL, left integer NOT NULL, odue integer NOT NULL,
  odid integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
CREATE TABLE revlog (id integer PRIMARY KEY, cid integer NOT NULL, usn integer NOT NULL, ease integer NOT NULL, ivl integer NOT NULL,
  lastIvl integer NOT NULL, factor integer NOT NULL, time integer NOT NULL, type integer NOT NULL);
CREATE TABLE deck_config (id integer PRIMARY KEY NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
  usn integer NOT NULL, config blob NOT NULL);
CREATE TABLE config (KEY text NOT NULL PRIMARY KEY, usn integer NOT NULL, mtime_secs integer NOT NULL, val blob NOT NULL) WITHOUT ROWID;
CREATE TABLE fields (ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL COLLATE unicase, config blob NOT NULL,
  PRIMARY KEY (ntid, ord)) WITHOUT ROWID;
CREATE TABLE templates (ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
  usn integer NOT NULL, config blob NOT NULL, PRIMARY KEY (ntid, ord)) WITHOUT ROWID;
CREATE TABLE notetypes (id integer NOT NULL PRIMARY KEY, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
  usn integer NOT NULL, config blob NOT NULL);
CREATE TABLE decks (id integer PRIMARY KEY NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
  usn integer NOT NULL, common blob NOT NULL, kind blob NOT NULL);
CREATE TABLE tags (tag text NOT NULL PRIMARY KEY COLLATE unicase, usn integer NOT NULL, collapsed boolean NOT NULL, config blob NULL) WITHOUT ROWID;
CREATE TABLE graves (oid integer NOT NULL, type integer NOT NULL, usn integer NOT NULL, PRIMARY KEY (oid, type)) WITHOUT ROWID;
CREATE UNIQUE INDEX idx_notetypes_name ON notetypes (name);
CREATE INDEX idx_fields_name_ntid ON fields (name, ntid);
CREATE INDEX idx_templates_name_ntid ON templates (name, ntid);
CREATE UNIQUE INDEX idx_decks_name ON decks (name);
CREATE INDEX ix_cards_nid ON cards (nid);
CREATE INDEX ix_revlog_cid ON revlog (cid);
`

// pb builds a protobuf message field by field.
type pb []byte

func (m pb) varint(num protowire.Number, v uint64) pb {
	m = protowire.AppendTag(m, num, protowire.VarintType)
	return protowire.AppendVarint(m, v)
}

func (m pb) bytes(num protowire.Number, v []byte) pb {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendBytes(m, v)
}

func (m pb) str(num protowire.Number, v string) pb { return m.bytes(num, []byte(v)) }

func (m pb) float(num protowire.Number, v float32) pb {
	m = protowire.AppendTag(m, num, protowire.Fixed32Type)
	return protowire.AppendFixed32(m, math.Float32bits(v))
}

// packed appends a packed repeated float field.
func (m pb) packed(num protowire.Number, vs ...float32) pb {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendFixed32(b, math.Float32bits(v))
	}
	return m.bytes(num, b)
}

func zstdOf(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// The hand-built current-format package's dates.
var (
	crt21b  = time.Date(2025, 1, 1, 4, 0, 0, 0, time.UTC)
	today21 = int64(690) // days since crt21b: 2026-11-22
)

const (
	ntBasicRev = 1700000000001
	ntCloze    = 1700000000002
	deckLang   = 1700000000101
	deckGerman = 1700000000102
	deckFilter = 1700000000103
	confFSRS5  = 1700000000201
	confFSRS6  = 1700000000202
)

var (
	params5 = []float32{0.40255, 1.18385, 3.173, 15.69105, 7.1949, 0.5345, 1.4604, 0.0046, 1.54575, 0.1192, 1.01925, 1.9395, 0.11, 0.29605, 2.2698, 0.2315, 2.9898, 0.51655, 0.6621}
	params6 = []float32{0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542}
	jpeg21  = []byte("\xff\xd8\xff\xe0 a tiny jpeg of a dog")
	mp321   = []byte("ID3\x03 a tiny mp3 of a bark")
)

// modernPackage builds a current-format .apkg by hand, following Anki's
// schema: zstd collection.anki21b, protobuf meta and media map, zstd
// media, plus the dummy collection.anki2 Anki adds for old clients.
// reviews rows of review log are spread over the review cards.
func modernPackage(t testing.TB, reviews int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "collection.anki21b")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(schema18)
	exec(`INSERT INTO col VALUES (1, ?, 0, 0, 18, 0, 0, 0, '', '', '', '', '')`, crt21b.Unix())

	// Note types: Basic (and reversed card), and Cloze (kind 1).
	exec(`INSERT INTO notetypes VALUES (?, 'Basic (and reversed card)', 0, 0, ?)`, ntBasicRev, []byte(pb{}.varint(2, 0).str(3, ".card { color: black; }")))
	exec(`INSERT INTO notetypes VALUES (?, 'Cloze', 0, 0, ?)`, ntCloze, []byte(pb{}.varint(1, 1).str(3, ".cloze { font-weight: bold; }")))
	for i, f := range []string{"Front", "Back"} {
		exec(`INSERT INTO fields VALUES (?, ?, ?, ?)`, ntBasicRev, i, f, []byte(pb{}.str(3, "Arial").varint(4, 20)))
	}
	for i, f := range []string{"Text", "Back Extra"} {
		exec(`INSERT INTO fields VALUES (?, ?, ?, ?)`, ntCloze, i, f, []byte(pb{}.str(3, "Arial")))
	}
	exec(`INSERT INTO templates VALUES (?, 1, 'Card 2', 0, 0, ?)`, ntBasicRev, []byte(pb{}.str(1, "{{Back}}").str(2, "{{FrontSide}}<hr id=answer>{{Front}}")))
	exec(`INSERT INTO templates VALUES (?, 0, 'Card 1', 0, 0, ?)`, ntBasicRev, []byte(pb{}.str(1, "{{Front}}").str(2, "{{FrontSide}}<hr id=answer>{{Back}}")))
	exec(`INSERT INTO templates VALUES (?, 0, 'Cloze', 0, 0, ?)`, ntCloze, []byte(pb{}.str(1, "{{cloze:Text}}").str(2, "{{cloze:Text}}<br>{{Back Extra}}")))

	// Presets: one with FSRS-5 parameters, one with FSRS-6.
	conf5 := pb{}.packed(1, 1, 10).packed(2, 10).packed(5, params5...).varint(9, 15).varint(10, 150).varint(16, 3650).
		varint(20, 1).varint(33, 7).float(37, 0.85)
	conf6 := pb{}.packed(1, 5, 30, 1440).packed(2, 15).packed(3, 1, 2, 3).packed(6, params6...).varint(9, 30).varint(10, 300).
		float(37, 0.9)
	exec(`INSERT INTO deck_config VALUES (1, 'Default', 0, 0, ?)`, []byte(pb{}.varint(9, 20)))
	exec(`INSERT INTO deck_config VALUES (?, 'FSRS-5', 0, 0, ?)`, confFSRS5, []byte(conf5))
	exec(`INSERT INTO deck_config VALUES (?, 'FSRS-6', 0, 0, ?)`, confFSRS6, []byte(conf6))

	// Decks: Default, Languages, Languages::German (0x1f between levels),
	// and a filtered deck.
	normal := func(conf int64, desc string) []byte {
		return pb{}.bytes(1, pb{}.varint(1, uint64(conf)).str(4, desc))
	}
	exec(`INSERT INTO decks VALUES (1, 'Default', 0, 0, x'', ?)`, normal(1, ""))
	exec(`INSERT INTO decks VALUES (?, 'Languages', 0, 0, x'', ?)`, deckLang, normal(confFSRS6, "All my languages"))
	exec(`INSERT INTO decks VALUES (?, ?, 0, 0, x'', ?)`, deckGerman, "Languages\x1fGerman", normal(confFSRS5, "<b>Deutsch</b>"))
	exec(`INSERT INTO decks VALUES (?, 'Cram', 0, 0, x'', ?)`, deckFilter, []byte(pb{}.bytes(2, pb{}.varint(1, 1))))

	// Notes: a reversed note with HTML, an image and audio; a cloze.
	exec(`INSERT INTO notes VALUES (1, 'Ab1+cD/2e', ?, 1732000000, 0, ' Vocab::German marked ', ?, 'der Hund', 0, 0, '')`,
		ntBasicRev, "<b>der Hund</b>&nbsp;<img src=\"hund.jpg\">\x1fthe dog [sound:bellen.mp3]")
	exec(`INSERT INTO notes VALUES (2, 'Zz9$%~^&*', ?, 1732000100, 0, '', ?, '', 0, 0, '')`,
		ntCloze, "{{c1::Der}} Hund {{c2::bellt::verb}}.\x1f<i>extra</i>")

	// Cards: a review card with FSRS memory state, its suspended
	// reverse in relearning, a new cloze, a learning cloze in the
	// filtered deck (home: German).
	lrt := crt21b.Add(680 * 24 * time.Hour).Add(7 * time.Hour).Unix()
	exec(`INSERT INTO cards VALUES (11, 1, ?, 0, 1732000000, 0, 2, 2, ?, 12, 2500, 9, 1, 0, 0, 0, 0, ?)`,
		deckGerman, today21+2, fmt.Sprintf(`{"s":14.25,"d":5.5,"dr":0.85,"lrt":%d}`, lrt))
	exec(`INSERT INTO cards VALUES (12, 1, ?, 1, 1732000000, 0, 3, -1, ?, 4, 2100, 6, 2, 1, 0, 0, 0, '{"s":1.5,"d":8.1}')`,
		deckGerman, crt21b.Add(690*24*time.Hour+30*time.Minute).Unix())
	exec(`INSERT INTO cards VALUES (13, 2, ?, 0, 1732000100, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0, 0, '')`, deckLang)
	exec(`INSERT INTO cards VALUES (14, 2, ?, 1, 1732000100, 0, 1, 1, ?, 0, 0, 1, 0, 1002, ?, ?, 0, '{}')`,
		deckFilter, crt21b.Add(690*24*time.Hour+5*time.Minute).Unix(), crt21b.Add(690*24*time.Hour+5*time.Minute).Unix(), deckGerman)

	// The review log: a learning step, then reviews, lapses and a manual
	// reschedule, reviews rows in all.
	t0 := crt21b.Add(24 * time.Hour).UnixMilli()
	stmt, err := db.Prepare(`INSERT INTO revlog VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reviews {
		cid := int64(11 + i%2)
		ease, ivl, last, typ := int64(3), int64(1+i/2%30), int64(i/2%30), int64(1)
		switch {
		case i < 2:
			ease, ivl, last, typ = 1, -600, 0, 0
		case i%17 == 0:
			ease, ivl, typ = 1, -600, 1
		case i%17 == 1:
			ease, typ = 3, 2
		case i%101 == 0:
			ease, ivl, typ = 0, 30, 4
		case i%7 == 0:
			ease = 4
		case i%5 == 0:
			ease = 2
		}
		if _, err := stmt.Exec(t0+int64(i)*3_600_000, cid, ease, ivl, last, 2500, 1000+i%9000, typ); err != nil {
			t.Fatal(err)
		}
	}
	stmt.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	col, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	media := pb{}
	for _, m := range []struct {
		name string
		data []byte
	}{{"hund.jpg", jpeg21}, {"bellen.mp3", mp321}} {
		sum := sha1.Sum(m.data)
		media = media.bytes(1, pb{}.str(1, m.name).varint(2, uint64(len(m.data))).bytes(3, sum[:]))
	}
	return zipOf(t,
		entry{"collection.anki2", []byte("a dummy collection asking old clients to update")},
		entry{"collection.anki21b", zstdOf(t, col)},
		entry{"media", zstdOf(t, media)},
		entry{"meta", pb{}.varint(1, 3)},
		entry{"0", zstdOf(t, jpeg21)},
		entry{"1", zstdOf(t, mp321)},
	)
}

// TestReadModernPackage reads the hand-built current-format package with
// exact expectations.
func TestReadModernPackage(t *testing.T) {
	p := read(t, modernPackage(t, 3000))

	if !p.Created.Equal(crt21b) {
		t.Errorf("created %v", p.Created)
	}
	wantTypes := []ports.AnkiNoteType{
		{Key: ntBasicRev, Name: "Basic (and reversed card)", Fields: []string{"Front", "Back"}, CSS: ".card { color: black; }", Templates: []ports.AnkiTemplate{
			{Name: "Card 1", Front: "{{Front}}", Back: "{{FrontSide}}<hr id=answer>{{Back}}"},
			{Name: "Card 2", Front: "{{Back}}", Back: "{{FrontSide}}<hr id=answer>{{Front}}"}}},
		{Key: ntCloze, Name: "Cloze", Cloze: true, Fields: []string{"Text", "Back Extra"}, CSS: ".cloze { font-weight: bold; }", Templates: []ports.AnkiTemplate{
			{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>{{Back Extra}}"}}},
	}
	if !reflect.DeepEqual(p.NoteTypes, wantTypes) {
		t.Errorf("note types = %+v\nwant %+v", p.NoteTypes, wantTypes)
	}

	w5 := make([]float64, 0, 21)
	for _, v := range params5 {
		w5 = append(w5, math.Round(float64(v)*1e4)/1e4)
	}
	w5 = append(w5, 0, 0.5)
	w6 := make([]float64, 0, 21)
	for _, v := range params6 {
		w6 = append(w6, math.Round(float64(v)*1e4)/1e4)
	}
	wantDecks := []ports.AnkiDeck{
		{Key: deckLang, Name: "Languages", Description: "All my languages", Settings: contracts.DeckSettings{DesiredRetention: 0.9, NewCardsPerDay: 30,
			ReviewsPerDay: 300, MaximumIntervalDays: contracts.DefaultMaximumIntervalDays, LearningSteps: []float64{5, 30, 1440}, RelearningSteps: []float64{15},
			Weights: w6, ReviewOrder: contracts.ReviewOrderDue, NewOrder: contracts.NewOrderAdded}},
		{Key: deckGerman, Name: "Languages::German", Description: "<b>Deutsch</b>", Settings: contracts.DeckSettings{DesiredRetention: 0.85, NewCardsPerDay: 15,
			ReviewsPerDay: 150, MaximumIntervalDays: 3650, LearningSteps: []float64{1, 10}, RelearningSteps: []float64{10},
			Weights: w5, ReviewOrder: contracts.ReviewOrderOverdueness, NewOrder: contracts.NewOrderRandom}},
	}
	if !reflect.DeepEqual(p.Decks, wantDecks) {
		t.Errorf("decks = %+v\nwant %+v", p.Decks, wantDecks)
	}

	wantNotes := []ports.AnkiNote{
		{Key: 1, GUID: "Ab1+cD/2e", TypeKey: ntBasicRev, Fields: []string{"<b>der Hund</b>&nbsp;<img src=\"hund.jpg\">", "the dog [sound:bellen.mp3]"},
			Tags: []string{"Vocab::German", "marked"}, Modified: time.Unix(1732000000, 0).UTC()},
		{Key: 2, GUID: "Zz9$%~^&*", TypeKey: ntCloze, Fields: []string{"{{c1::Der}} Hund {{c2::bellt::verb}}.", "<i>extra</i>"}, Modified: time.Unix(1732000100, 0).UTC()},
	}
	if !reflect.DeepEqual(p.Notes, wantNotes) {
		t.Errorf("notes = %+v\nwant %+v", p.Notes, wantNotes)
	}

	if len(p.Cards) != 4 {
		t.Fatalf("cards = %+v", p.Cards)
	}
	lrt := crt21b.Add(680 * 24 * time.Hour).Add(7 * time.Hour)
	lastRev := p.Reviews[len(p.Reviews)-1].State.LastReview // the last rating of card 12
	for _, r := range p.Reviews {
		if r.CardKey == 12 && r.Kind != ports.ReviewKindManual {
			lastRev = r.State.LastReview
		}
	}
	wantCards := []ports.AnkiCard{
		{Key: 11, NoteKey: 1, DeckKey: deckGerman, State: contracts.CardState{Phase: contracts.PhaseReview, Due: crt21b.Add(692 * 24 * time.Hour),
			Stability: 14.25, Difficulty: 5.5, ScheduledDays: 12, Reps: 9, Lapses: 1, LastReview: &lrt}, Modified: time.Unix(1732000000, 0).UTC()},
		{Key: 12, NoteKey: 1, DeckKey: deckGerman, Ord: 1, Suspended: true, State: contracts.CardState{Phase: contracts.PhaseRelearning,
			Due: crt21b.Add(690*24*time.Hour + 30*time.Minute), Stability: 1.5, Difficulty: 8.1, ScheduledDays: 4, Reps: 6, Lapses: 2,
			Step: 0, LastReview: lastRev}, Modified: time.Unix(1732000000, 0).UTC()},
		{Key: 13, NoteKey: 2, DeckKey: deckLang, State: contracts.CardState{Phase: contracts.PhaseNew}, Position: 42, Modified: time.Unix(1732000100, 0).UTC()},
		{Key: 14, NoteKey: 2, DeckKey: deckGerman, Ord: 1, State: contracts.CardState{Phase: contracts.PhaseLearning,
			Due: crt21b.Add(690*24*time.Hour + 5*time.Minute), Reps: 1, Step: 0}, Modified: time.Unix(1732000100, 0).UTC()},
	}
	if !reflect.DeepEqual(p.Cards, wantCards) {
		t.Errorf("cards =\n%+v\nwant\n%+v", p.Cards, wantCards)
	}

	if len(p.Reviews) != 3000 {
		t.Fatalf("%d reviews, want 3000", len(p.Reviews))
	}
	first := p.Reviews[0]
	t0 := crt21b.Add(24 * time.Hour)
	if first.Key != t0.UnixMilli() || first.CardKey != 11 || first.Rating != contracts.RatingAgain || first.PrevPhase != contracts.PhaseNew ||
		first.State.Phase != contracts.PhaseLearning || !first.State.Due.Equal(t0.Add(10*time.Minute)) || first.DurationMs != 1000 {
		t.Errorf("first review = %+v", first)
	}
	counts := map[string]int{}
	for i, r := range p.Reviews {
		counts[string(r.Rating)+"/"+r.Kind+"/"+string(r.PrevPhase)+">"+string(r.State.Phase)]++
		if r.Key != t0.UnixMilli()+int64(i)*3_600_000 {
			t.Fatalf("review %d key %d", i, r.Key)
		}
	}
	want := map[string]int{}
	for i := range 3000 {
		switch {
		case i < 2:
			want["again//new>learning"]++
		case i%17 == 0:
			want["again//review>relearning"]++
		case i%17 == 1:
			want["good//relearning>review"]++
		case i%101 == 0:
			want["manual/manual/review>review"]++
		case i%7 == 0:
			want["easy//review>review"]++
		case i%5 == 0:
			want["hard//review>review"]++
		default:
			want["good//review>review"]++
		}
	}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("review kinds = %v\nwant %v", counts, want)
	}

	if got := mediaBytes(t, p); len(got) != 2 || got["hund.jpg"] != string(jpeg21) || got["bellen.mp3"] != string(mp321) {
		t.Errorf("media = %q", got)
	}
	if p.Media[0].Name != "hund.jpg" || p.Media[1].Name != "bellen.mp3" {
		t.Errorf("media order %s, %s", p.Media[0].Name, p.Media[1].Name)
	}
}

// TestReadModernPackageRefusesCorruption: damaged zstd or protobuf in a
// current-format package is invalid with a reason.
func TestReadModernPackageRefusesCorruption(t *testing.T) {
	good := entries(t, modernPackage(t, 10))
	cases := []struct {
		name, entry string
		data        []byte
		reason      string
	}{
		{"collection not zstd", "collection.anki21b", []byte("not zstd at all"), "collection"},
		{"truncated zstd collection", "collection.anki21b", zstdOf(t, bytes.Repeat([]byte("x"), 100000))[:50], "collection"},
		{"media map not zstd", "media", []byte{1, 2, 3}, "media"},
		{"media map bad protobuf", "media", zstdOf(t, []byte{0x0a, 0xff, 0xff, 0xff}), "media map is damaged"},
		{"media name traversal", "media", zstdOf(t, pb{}.bytes(1, pb{}.str(1, "..\\..\\x.jpg"))), "not a plain file name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := readErr(t, zipOf(t, replace(good, c.entry, c.data)...), ankipkg.Limits{})
			if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), c.reason) {
				t.Errorf("err = %v (%q), want invalid mentioning %q", err, contracts.MessageOf(err), c.reason)
			}
		})
	}
}
