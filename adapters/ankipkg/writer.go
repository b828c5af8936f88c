// Package ankipkg reads and writes Anki packages (.apkg): a zip holding a
// SQLite collection and the media files. It implements ports.PackageWriter
// with modernc.org/sqlite (pure Go); the domain never opens SQLite itself.
package ankipkg

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the collection is a SQLite database

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Writer writes .apkg files in the schema-11 collection.anki2 format.
type Writer struct {
	// TempDir holds the collection while it is built ("" is os.TempDir()).
	TempDir string
}

var _ ports.PackageWriter = Writer{}

// schema11 is the collection schema Anki 2.1 reads from collection.anki2.
const schema11 = `
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null,
  dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null,
  dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null,
  tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null,
  usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null,
  factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null,
  odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null,
  lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_notes_usn on notes (usn);
CREATE INDEX ix_cards_usn on cards (usn);
CREATE INDEX ix_revlog_usn on revlog (usn);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_cards_sched on cards (did, queue, due);
CREATE INDEX ix_revlog_cid on revlog (cid);
CREATE INDEX ix_notes_csum on notes (csum);
`

// defaultDeckKey is the id of Anki's "Default" deck, which every
// collection has.
const defaultDeckKey = 1

// WritePackage implements ports.PackageWriter.
func (w Writer) WritePackage(ctx context.Context, out io.Writer, p ports.AnkiPackage) error {
	if err := check(p); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(w.TempDir, "apkg-*")
	if err != nil {
		return contracts.Internal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "collection.anki2")
	if err := writeCollection(ctx, path, p); err != nil {
		return err
	}
	zw := zip.NewWriter(out)
	if err := addFile(zw, "collection.anki2", path); err != nil {
		return err
	}
	names := map[string]string{}
	for i, m := range p.Media {
		key := strconv.Itoa(i)
		names[key] = m.Name
		if err := addMedia(ctx, zw, key, m); err != nil {
			return err
		}
	}
	mw, err := zw.Create("media")
	if err != nil {
		return contracts.Internal(err)
	}
	if err := json.NewEncoder(mw).Encode(names); err != nil {
		return contracts.Internal(err)
	}
	if err := zw.Close(); err != nil {
		return contracts.Internal(err)
	}
	return nil
}

// check refuses a package whose records name keys it lacks.
func check(p ports.AnkiPackage) error {
	decks, types, notes := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	for _, d := range p.Decks {
		decks[d.Key] = true
	}
	for _, t := range p.NoteTypes {
		types[t.Key] = true
	}
	for _, n := range p.Notes {
		if !types[n.TypeKey] {
			return contracts.Errorf(contracts.KindInvalid, "note %d names note type %d, which the package lacks", n.Key, n.TypeKey)
		}
		notes[n.Key] = true
	}
	for _, c := range p.Cards {
		if !notes[c.NoteKey] || !decks[c.DeckKey] {
			return contracts.Errorf(contracts.KindInvalid, "card %d names a note or deck the package lacks", c.Key)
		}
	}
	return nil
}

func addFile(zw *zip.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return contracts.Internal(err)
	}
	defer f.Close()
	zf, err := zw.Create(name)
	if err != nil {
		return contracts.Internal(err)
	}
	if _, err := io.Copy(zf, f); err != nil {
		return contracts.Internal(err)
	}
	return nil
}

func addMedia(ctx context.Context, zw *zip.Writer, key string, m ports.AnkiMedia) error {
	r, err := m.Open(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	zf, err := zw.Create(key)
	if err != nil {
		return contracts.Internal(err)
	}
	if _, err := io.Copy(zf, r); err != nil {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "a media file could not be read; retry", Err: err}
	}
	return nil
}

// writeCollection builds the SQLite collection at path.
func writeCollection(ctx context.Context, path string, p ports.AnkiPackage) (err error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return contracts.Internal(err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = contracts.Internal(cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema11); err != nil {
		return contracts.Internal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return contracts.Internal(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	crt := dayStart(p.Created)
	now := time.Now()
	models, decks, dconf, err := colJSON(p, now)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')`,
		crt.Unix(), now.UnixMilli(), now.UnixMilli(), colConf, models, decks, dconf); err != nil {
		return contracts.Internal(err)
	}
	for _, n := range p.Notes {
		sort := ""
		if len(n.Fields) > 0 {
			sort = stripHTML(n.Fields[0])
		}
		tags := ""
		if len(n.Tags) > 0 {
			tags = " " + strings.Join(n.Tags, " ") + " "
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')`,
			n.Key, n.GUID, n.TypeKey, n.Modified.Unix(), tags, strings.Join(n.Fields, "\x1f"), sort, checksum(sort)); err != nil {
			return contracts.Internal(err)
		}
	}
	for _, c := range p.Cards {
		s := cardSched(c, crt)
		if _, err := tx.ExecContext(ctx, `INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)`,
			c.Key, c.NoteKey, c.DeckKey, c.Ord, c.Modified.Unix(), s.typ, s.queue, s.due, s.ivl, s.factor,
			c.State.Reps, c.State.Lapses, s.left, s.data); err != nil {
			return contracts.Internal(err)
		}
	}
	for _, r := range p.Reviews {
		ease, typ := revlogEase(r)
		if _, err := tx.ExecContext(ctx, `INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)`,
			r.Key, r.CardKey, ease, revlogIvl(r.State), r.PrevInterval, factor(r.State.Difficulty), r.DurationMs, typ); err != nil {
			return contracts.Internal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return contracts.Internal(err)
	}
	return nil
}

// colConf is the collection's configuration: the defaults Anki writes.
const colConf = `{"activeDecks":[1],"curDeck":1,"newSpread":0,"collapseTime":1200,"timeLim":0,"estTimes":true,"dueCounts":true,` +
	`"curModel":null,"nextPos":1,"sortType":"noteFld","sortBackwards":false,"addToCur":true}`

// colJSON builds the col row's models, decks and dconf columns.
func colJSON(p ports.AnkiPackage, now time.Time) (models, decks, dconf string, err error) {
	m := map[string]any{}
	firstDeck := int64(defaultDeckKey)
	if len(p.Decks) > 0 {
		firstDeck = p.Decks[0].Key
	}
	for _, t := range p.NoteTypes {
		var flds, tmpls []map[string]any
		for i, f := range t.Fields {
			flds = append(flds, map[string]any{"name": f, "ord": i, "sticky": false, "rtl": false, "font": "Arial", "size": 20, "media": []any{}})
		}
		for i, tp := range t.Templates {
			tmpls = append(tmpls, map[string]any{"name": tp.Name, "ord": i, "qfmt": tp.Front, "afmt": tp.Back, "bqfmt": "", "bafmt": "", "did": nil})
		}
		typ := 0
		if t.Cloze {
			typ = 1
		}
		css := t.CSS
		if css == "" {
			css = ".card {\n font-family: arial;\n font-size: 20px;\n text-align: center;\n color: black;\n background-color: white;\n}\n"
		}
		m[strconv.FormatInt(t.Key, 10)] = map[string]any{
			"id": t.Key, "name": t.Name, "type": typ, "mod": now.Unix(), "usn": -1, "sortf": 0, "did": firstDeck,
			"tmpls": tmpls, "flds": flds, "css": css, "latexPre": latexPre, "latexPost": "\\end{document}", "latexsvg": false,
			"req": requirements(t), "tags": []any{}, "vers": []any{},
		}
	}
	d := map[string]any{strconv.Itoa(defaultDeckKey): deckJSON(defaultDeckKey, "Default", "", defaultDeckKey, now)}
	c := map[string]any{strconv.Itoa(defaultDeckKey): presetJSON(defaultDeckKey, "Default", contracts.DefaultDeckSettings(), now)}
	for _, dk := range p.Decks {
		key := strconv.FormatInt(dk.Key, 10)
		d[key] = deckJSON(dk.Key, dk.Name, dk.Description, dk.Key, now)
		c[key] = presetJSON(dk.Key, dk.Name, dk.Settings, now)
	}
	for _, part := range []struct {
		v   any
		out *string
	}{{m, &models}, {d, &decks}, {c, &dconf}} {
		b, err := json.Marshal(part.v)
		if err != nil {
			return "", "", "", contracts.Internal(err)
		}
		*part.out = string(b)
	}
	return models, decks, dconf, nil
}

const latexPre = "\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n" +
	"\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n"

// requirements is the legacy "req" list older Anki versions use to tell
// which templates make a card: a template needs any field it names.
func requirements(t ports.AnkiNoteType) []any {
	var req []any
	for i, tp := range t.Templates {
		var fields []int
		for j, f := range t.Fields {
			if strings.Contains(tp.Front, "{{"+f+"}}") || strings.Contains(tp.Front, ":"+f+"}}") || strings.Contains(tp.Front, "{{#"+f+"}}") {
				fields = append(fields, j)
			}
		}
		if len(fields) == 0 {
			fields = []int{0}
		}
		req = append(req, []any{i, "any", fields})
	}
	return req
}

func deckJSON(key int64, name, desc string, conf int64, now time.Time) map[string]any {
	return map[string]any{
		"id": key, "name": name, "desc": desc, "mod": now.Unix(), "usn": -1, "dyn": 0, "conf": conf, "collapsed": false,
		"browserCollapsed": false, "extendNew": 0, "extendRev": 0,
		"newToday": []int{0, 0}, "revToday": []int{0, 0}, "lrnToday": []int{0, 0}, "timeToday": []int{0, 0},
	}
}

// presetJSON is a deck options group with the deck's preset: steps,
// limits, maximum interval, desired retention and FSRS weights.
func presetJSON(key int64, name string, s contracts.DeckSettings, now time.Time) map[string]any {
	learn, relearn := s.LearningSteps, s.RelearningSteps
	if learn == nil {
		learn = []float64{1, 10}
	}
	if relearn == nil {
		relearn = []float64{10}
	}
	newOrder := 1 // due (as added)
	if s.NewOrder == contracts.NewOrderRandom {
		newOrder = 0
	}
	conf := map[string]any{
		"id": key, "name": name, "mod": now.Unix(), "usn": -1, "maxTaken": 60, "autoplay": true, "timer": 0, "replayq": true, "dyn": false,
		"new":              map[string]any{"delays": learn, "ints": []int{1, 4, 0}, "initialFactor": 2500, "order": newOrder, "perDay": s.NewCardsPerDay, "bury": false},
		"rev":              map[string]any{"perDay": s.ReviewsPerDay, "ease4": 1.3, "ivlFct": 1, "maxIvl": s.MaximumIntervalDays, "hardFactor": 1.2, "bury": false},
		"lapse":            map[string]any{"delays": relearn, "mult": 0, "minInt": 1, "leechFails": 8, "leechAction": 1},
		"desiredRetention": s.DesiredRetention,
	}
	if len(s.Weights) > 0 {
		conf["fsrsParams6"] = s.Weights
	}
	return conf
}

// sched is a card's scheduling columns.
type sched struct {
	typ, queue  int
	due         int64
	ivl, factor int
	left        int
	data        string
}

// cardSched maps a card's state onto Anki's columns: type and queue by
// phase (queue -1 when suspended), due as a new card's position, a
// learning step's epoch second, or a review's day number since the
// collection's creation, and the FSRS memory state in data.
func cardSched(c ports.AnkiCard, crt time.Time) sched {
	st := c.State
	s := sched{factor: factor(st.Difficulty), ivl: st.ScheduledDays, data: "{}"}
	switch st.Phase {
	case contracts.PhaseLearning, contracts.PhaseRelearning:
		s.typ, s.queue = 1, 1
		if st.Phase == contracts.PhaseRelearning {
			s.typ = 3
		}
		s.due = st.Due.Unix()
		s.left = 1
	case contracts.PhaseReview:
		s.typ, s.queue = 2, 2
		s.due = int64(math.Floor(st.Due.Sub(crt).Hours() / 24))
	default:
		s.typ, s.queue, s.due, s.ivl, s.factor = 0, 0, int64(c.Position), 0, 0
	}
	if c.Suspended {
		s.queue = -1
	}
	if st.Stability > 0 {
		b, _ := json.Marshal(map[string]float64{"s": round(st.Stability, 4), "d": round(st.Difficulty, 4)})
		s.data = string(b)
	}
	return s
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// factor is the ease factor (permille) Anki's legacy scheduler would show
// for an FSRS difficulty (1–10): easier cards get a higher ease.
func factor(difficulty float64) int {
	if difficulty <= 0 {
		return 2500
	}
	return int(math.Round(1300 + (10-difficulty)/9*1700))
}

// revlogEase maps a review onto Anki's ease (1–4, 0 for manual) and type
// (0 learn, 1 review, 2 relearn, 3 cram, 4 manual).
func revlogEase(r ports.AnkiReview) (ease, typ int) {
	switch r.Rating {
	case contracts.RatingAgain:
		ease = 1
	case contracts.RatingHard:
		ease = 2
	case contracts.RatingGood:
		ease = 3
	case contracts.RatingEasy:
		ease = 4
	}
	switch {
	case r.Kind == ports.ReviewKindManual || ease == 0:
		return 0, 4
	case r.Kind == ports.ReviewKindCram:
		return ease, 3
	case r.PrevPhase == contracts.PhaseReview:
		return ease, 1
	case r.PrevPhase == contracts.PhaseRelearning:
		return ease, 2
	}
	return ease, 0
}

// revlogIvl is the interval after a review: days, or negative seconds
// for a learning step.
func revlogIvl(st contracts.CardState) int {
	if st.Phase == contracts.PhaseLearning || st.Phase == contracts.PhaseRelearning {
		if st.LastReview != nil {
			return -int(st.Due.Sub(*st.LastReview).Seconds())
		}
		return 0
	}
	return st.ScheduledDays
}

// dayStart is the collection's creation time: 4 a.m. UTC of t's day, as
// Anki's day rolls over.
func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 4, 0, 0, 0, time.UTC)
}

var (
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
	mediaRefs = regexp.MustCompile(`\[sound:[^\]]*\]`)
)

// stripHTML is Anki's sort field: the text without tags.
func stripHTML(s string) string {
	s = htmlTag.ReplaceAllString(s, "")
	s = mediaRefs.ReplaceAllString(s, "")
	r := strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`)
	return strings.TrimSpace(r.Replace(s))
}

// checksum is Anki's duplicate check: the first 8 hex digits of the SHA-1
// of the stripped first field, as an integer.
func checksum(s string) int64 {
	h := sha1.Sum([]byte(s))
	return int64(binary.BigEndian.Uint32(h[:4]))
}
