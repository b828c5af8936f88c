package ankipkg_test

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
)

// entry is one zip entry of a hand-made package.
type entry struct {
	name string
	data []byte
}

// zipOf packs entries (deflated) into a zip.
func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// entries unpacks a package into its entries, in order.
func entries(t testing.TB, b []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{f.Name, data})
	}
	return out
}

// replace swaps the named entries' data (adding missing ones).
func replace(es []entry, name string, data []byte) []entry {
	out := append([]entry(nil), es...)
	for i := range out {
		if out[i].name == name {
			out[i].data = data
			return out
		}
	}
	return append(out, entry{name, data})
}

// editCollection runs SQL on the collection of a package of our writer.
func editCollection(t testing.TB, pkg []byte, stmts ...string) []byte {
	t.Helper()
	es := entries(t, pkg)
	var col []byte
	for _, e := range es {
		if e.name == "collection.anki2" {
			col = e.data
		}
	}
	path := filepath.Join(t.TempDir(), "c.anki2")
	if err := os.WriteFile(path, col, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	col, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return zipOf(t, replace(es, "collection.anki2", col)...)
}

// withCollection replaces a package's collection.anki2 with edit's
// result on a copy of its bytes.
func withCollection(t testing.TB, pkg []byte, edit func([]byte) []byte) []byte {
	t.Helper()
	es := entries(t, pkg)
	for i := range es {
		if es[i].name == "collection.anki2" {
			es[i].data = edit(append([]byte(nil), es[i].data...))
		}
	}
	return zipOf(t, es...)
}

// readErr reads b with limits and returns the error.
func readErr(t testing.TB, b []byte, lim ankipkg.Limits) error {
	t.Helper()
	_, err := (ankipkg.Reader{TempDir: t.TempDir(), Limits: lim}).ReadPackage(context.Background(), bytes.NewReader(b), int64(len(b)))
	return err
}

// TestReadPackageRefusesHostileInput: each hostile package is invalid
// with a reason naming the problem, never a panic or a partial read.
func TestReadPackageRefusesHostileInput(t *testing.T) {
	good := write(t, samplePackage())
	bomb := bytes.Repeat([]byte{0}, 8<<20) // deflates to a few KiB
	cases := []struct {
		name   string
		pkg    []byte
		lim    ankipkg.Limits
		reason string
	}{
		{"not a zip", []byte("PK but not really a zip file"), ankipkg.Limits{}, "not a zip"},
		{"empty zip", zipOf(t), ankipkg.Limits{}, "holds no collection"},
		{"too many entries", zipOf(t, entry{"a", nil}, entry{"b", nil}, entry{"c", nil}), ankipkg.Limits{Entries: 2}, "3 entries"},
		{"zip bomb in the total", zipOf(t, append(entries(t, good), entry{"9", bomb})...), ankipkg.Limits{TotalBytes: 4 << 20}, "more than 4 MiB, the limit"},
		{"collection too large", good, ankipkg.Limits{CollectionBytes: 1 << 10}, "collection unpacks"},
		{"collection not SQLite", zipOf(t, entry{"collection.anki2", bomb[:4096]}), ankipkg.Limits{}, "not a SQLite database"},
		{"path traversal in a media name", zipOf(t, replace(entries(t, good), "media", []byte(`{"0":"../../etc/passwd"}`))...), ankipkg.Limits{}, "not a plain file name"},
		{"absolute media name", zipOf(t, replace(entries(t, good), "media", []byte(`{"0":"/tmp/x.png"}`))...), ankipkg.Limits{}, "not a plain file name"},
		{"control character in a media name", zipOf(t, replace(entries(t, good), "media", []byte(`{"0":"a\u0000b.png"}`))...), ankipkg.Limits{}, "not a plain file name"},
		{"media map not JSON", zipOf(t, replace(entries(t, good), "media", []byte(`{"0":`))...), ankipkg.Limits{}, "media map is not valid JSON"},
		{"unknown meta version", zipOf(t, replace(entries(t, good), "meta", []byte{0x08, 0x09})...), ankipkg.Limits{}, "package version 9"},
		{"damaged meta", zipOf(t, replace(entries(t, good), "meta", []byte{0x08})...), ankipkg.Limits{}, "meta file is damaged"},
		{"latest without anki21b", zipOf(t, replace(entries(t, good), "meta", []byte{0x08, 0x03})...), ankipkg.Limits{}, "no collection.anki21b"},
		{"huge field", editCollection(t, good, `UPDATE notes SET flds = flds || printf('%.*c', 70000, 'x')`), ankipkg.Limits{FieldBytes: 64 << 10}, "field text"},
		{"huge template", editCollection(t, good, `UPDATE col SET models = replace(models, '{{Front}}', printf('%.*c', 70000, 'x'))`), ankipkg.Limits{TemplateBytes: 64 << 10}, "larger than 64 KiB"},
		{"missing notes table", editCollection(t, good, `DROP TABLE notes`), ankipkg.Limits{}, "no notes table"},
		{"missing cards table", editCollection(t, good, `DROP TABLE cards`), ankipkg.Limits{}, "no cards table"},
		{"missing revlog table", editCollection(t, good, `DROP TABLE revlog`), ankipkg.Limits{}, "no revlog table"},
		{"models not JSON", editCollection(t, good, `UPDATE col SET models = '{'`), ankipkg.Limits{}, "not valid JSON"},
		{"note of a missing type", editCollection(t, good, `UPDATE notes SET mid = 7`), ankipkg.Limits{}, "note type 7"},
		{"card of a missing note", editCollection(t, good, `UPDATE cards SET nid = 7`), ankipkg.Limits{}, "note 7"},
		{"null field text", editCollection(t, good, `CREATE TABLE n2 AS SELECT * FROM notes`, `DROP TABLE notes`, `CREATE TABLE notes (id integer primary key, guid, mid, mod, usn, tags, flds, sfld, csum, flags, data)`, `INSERT INTO notes SELECT id, guid, mid, mod, usn, tags, NULL, sfld, csum, flags, data FROM n2`), ankipkg.Limits{}, "note row is damaged"},
		// Issue 29 §2: the collection is someone else's SQLite file.
		{"notes a view", editCollection(t, good, `ALTER TABLE notes RENAME TO n2`, `CREATE VIEW notes AS SELECT * FROM n2`), ankipkg.Limits{}, "notes is a view or virtual table, not a table"},
		{"cards without an integer key", editCollection(t, good, `CREATE TABLE c2 AS SELECT * FROM cards`, `DROP TABLE cards`, `ALTER TABLE c2 RENAME TO cards`), ankipkg.Limits{}, "cards table has no integer primary key id"},
		{"revlog keyed by text", editCollection(t, good, `CREATE TABLE r2 AS SELECT * FROM revlog`, `DROP TABLE revlog`, `CREATE TABLE revlog (id text primary key, cid, usn, ease, ivl, lastIvl, factor, time, type)`, `INSERT INTO revlog SELECT * FROM r2`), ankipkg.Limits{}, "revlog table has no integer primary key id"},
		{"notes without flds", editCollection(t, good, `ALTER TABLE notes DROP COLUMN flds`), ankipkg.Limits{}, "notes table has no flds column"},
		{"generated field text", editCollection(t, good, `ALTER TABLE notes DROP COLUMN flds`, `ALTER TABLE notes ADD COLUMN flds TEXT GENERATED ALWAYS AS (printf('%.*c', 70000, 'x')) VIRTUAL`), ankipkg.Limits{}, "notes.flds is a generated column"},
		{"col row's models too long", editCollection(t, good, `UPDATE col SET models = models || printf('%.*c', 70000, ' ')`), ankipkg.Limits{MetaBytes: 64 << 10}, "models is longer than 64 KiB"},
		{"card data too long", editCollection(t, good, `UPDATE cards SET data = printf('%.*c', 70000, 'x')`), ankipkg.Limits{FieldBytes: 64 << 10}, "of data; the limit is 64 KiB"},
		{"tags too long", editCollection(t, good, `UPDATE notes SET tags = printf('%.*c', 70000, 'x')`), ankipkg.Limits{FieldBytes: 64 << 10}, "of tags; the limit is 64 KiB"},
		{"value past the length limit", editCollection(t, good, `UPDATE col SET models = models || printf('%.*c', 70000, ' ')`), ankipkg.Limits{ValueBytes: 64 << 10}, "longer than 64 KiB, the limit"},
		{"truncated collection", withCollection(t, good, func(b []byte) []byte { return b[:len(b)-4096] }), ankipkg.Limits{}, "truncated"},
		{"page size not a power of two", withCollection(t, good, func(b []byte) []byte { b[16], b[17] = 0x03, 0x00; return b }), ankipkg.Limits{}, "page size of 768 bytes"},
		{"collection header only", withCollection(t, good, func(b []byte) []byte { return b[:100] }), ankipkg.Limits{}, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := readErr(t, c.pkg, c.lim)
			if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), c.reason) {
				t.Errorf("err = %v (message %q), want invalid mentioning %q", err, contracts.MessageOf(err), c.reason)
			}
		})
	}
}

// TestReadPackageTakesSQLAsData: SQL in field text is a field's text.
func TestReadPackageTakesSQLAsData(t *testing.T) {
	p := samplePackage()
	p.Notes[0].Fields[0] = `'); DROP TABLE notes; --`
	p.Notes[0].Fields[1] = `" OR 1=1; ATTACH DATABASE '/tmp/x' AS x; --`
	out := read(t, write(t, p))
	if out.Notes[0].Fields[0] != p.Notes[0].Fields[0] || out.Notes[0].Fields[1] != p.Notes[0].Fields[1] || len(out.Notes) != 2 {
		t.Errorf("notes = %+v", out.Notes)
	}
}

// TestMediaOpenIsBounded: a media file past the per-file limit fails
// when read, and a file the map names but the zip lacks fails on Open.
func TestMediaOpenIsBounded(t *testing.T) {
	good := write(t, samplePackage())
	es := replace(entries(t, good), "0", bytes.Repeat([]byte("x"), 4096))
	big := zipOf(t, replace(es, "media", []byte(`{"0":"dog.png","1":"gone.mp3"}`))...)
	p, err := (ankipkg.Reader{TempDir: t.TempDir(), Limits: ankipkg.Limits{MediaFileBytes: 1024}}).ReadPackage(context.Background(), bytes.NewReader(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Media) != 2 {
		t.Fatalf("media = %+v", p.Media)
	}
	if _, err := p.Media[0].Open(context.Background()); contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), "limit") {
		t.Errorf("oversized media: %v", err)
	}
	if _, err := p.Media[1].Open(context.Background()); contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), "missing") {
		t.Errorf("missing media: %v", err)
	}
}

// TestReadPackageCanceled: a read whose context has ended stops with an
// error that is context.Canceled.
func TestReadPackageCanceled(t *testing.T) {
	b := write(t, samplePackage())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (ankipkg.Reader{TempDir: t.TempDir()}).ReadPackage(ctx, bytes.NewReader(b), int64(len(b)))
	if !errors.Is(err, context.Canceled) || contracts.KindOf(err) != contracts.KindUnavailable {
		t.Errorf("err = %v, want unavailable wrapping context.Canceled", err)
	}
}

// TestReadColpkgLegacy2: a package (or collection backup, .colpkg) whose
// collection is collection.anki21 is read from it, not from the dummy
// collection.anki2 beside it.
func TestReadColpkgLegacy2(t *testing.T) {
	es := entries(t, write(t, samplePackage()))
	for i := range es {
		if es[i].name == "collection.anki2" {
			es[i].name = "collection.anki21"
		}
	}
	es = append(es, entry{"collection.anki2", []byte("please update to the latest Anki version")})
	p := read(t, zipOf(t, es...))
	if len(p.Notes) != 2 || len(p.Cards) != 3 || len(p.Reviews) != 3 || len(p.Media) != 1 {
		t.Errorf("read %d notes, %d cards, %d reviews, %d media", len(p.Notes), len(p.Cards), len(p.Reviews), len(p.Media))
	}
}
