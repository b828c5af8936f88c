package ankipkg_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
)

// fuzzLimits keep one fuzz input small and quick.
var fuzzLimits = ankipkg.Limits{Entries: 64, CollectionBytes: 4 << 20, MediaFileBytes: 1 << 20, TotalBytes: 16 << 20,
	FieldBytes: 256 << 10, TemplateBytes: 64 << 10, MetaBytes: 1 << 20}

// FuzzReadPackage feeds the reader mutated packages (the seed corpus in
// testdata/fuzz/FuzzReadPackage holds our writer's, genanki-js's and a
// hand-built current-format package; hostileSeeds adds collections an
// attacker writes): it reads them, or refuses them as invalid, within
// bounded time and memory; it never panics, and every media file it
// lists opens or fails cleanly. make fuzz-package runs it longer.
func FuzzReadPackage(f *testing.F) {
	for _, name := range []string{"testdata/genanki.apkg", "testdata/genanki-custom.apkg"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	for _, seed := range hostileSeeds(f) {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pkg []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := (ankipkg.Reader{TempDir: dir, Limits: fuzzLimits}).ReadPackage(ctx, bytes.NewReader(pkg), int64(len(pkg)))
		if err != nil {
			if k := contracts.KindOf(err); k != contracts.KindInvalid && k != contracts.KindUnavailable {
				t.Fatalf("a bad package gave a %s error: %v", k, err)
			}
			if contracts.MessageOf(err) == "" {
				t.Fatalf("an error without a reason: %v", err)
			}
			return
		}
		for _, m := range p.Media {
			rc, err := m.Open(ctx)
			if err != nil {
				if contracts.KindOf(err) != contracts.KindInvalid {
					t.Fatalf("media %q: %v", m.Name, err)
				}
				continue
			}
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			if n > fuzzLimits.MediaFileBytes || (err != nil && contracts.KindOf(err) != contracts.KindInvalid) {
				t.Fatalf("media %q: %d bytes, %v", m.Name, n, err)
			}
		}
		for _, n := range p.Notes {
			size := 0
			for _, fld := range n.Fields {
				size += len(fld)
			}
			if size > fuzzLimits.FieldBytes {
				t.Fatalf("note %d has %d bytes of fields past the limit", n.Key, size)
			}
		}
	})
}

// hostileSeeds are packages whose collection is hostile SQLite (issue 29
// §2): views (recursive, of huge values), triggers, generated columns,
// tables without their key, huge stored values, wrong page sizes,
// truncated files and a zip bomb, each small enough for the fuzzer to
// mutate.
func hostileSeeds(f *testing.F) [][]byte {
	good := write(f, samplePackage())
	header := func(edit func([]byte) []byte) []byte { return withCollection(f, good, edit) }
	return [][]byte{
		editCollection(f, good, `ALTER TABLE notes RENAME TO n2`,
			`CREATE VIEW notes AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i AS id, 'g' AS guid, (SELECT mid FROM n2) AS mid, 0 AS mod, 0 AS usn, '' AS tags, 'x' AS flds, '' AS sfld, 0 AS csum, 0 AS flags, '' AS data FROM r`),
		editCollection(f, good, `ALTER TABLE cards RENAME TO c2`, `CREATE VIEW cards AS SELECT id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, CAST(zeroblob(1 << 24) AS TEXT) AS data FROM c2`),
		editCollection(f, good, `CREATE TRIGGER t AFTER INSERT ON notes BEGIN DELETE FROM cards; END`, `CREATE TABLE x (a)`, `CREATE TRIGGER u BEFORE DELETE ON x BEGIN SELECT zeroblob(1 << 30); END`),
		editCollection(f, good, `ALTER TABLE notes DROP COLUMN flds`, `ALTER TABLE notes ADD COLUMN flds TEXT GENERATED ALWAYS AS (printf('%.*c', 1 << 20, 'x')) VIRTUAL`),
		editCollection(f, good, `CREATE TABLE c2 AS SELECT * FROM cards`, `DROP TABLE cards`, `ALTER TABLE c2 RENAME TO cards`),
		editCollection(f, good, `UPDATE notes SET flds = printf('%.*c', 300000, 'x')`),
		editCollection(f, good, `UPDATE col SET models = replace(models, '{{Front}}', printf('%.*c', 100000, 'x'))`),
		editCollection(f, good, `PRAGMA page_size = 512`, `VACUUM`),
		editCollection(f, good, `PRAGMA page_size = 65536`, `VACUUM`),
		header(func(b []byte) []byte { b[16], b[17] = 0x03, 0x00; return b }),
		header(func(b []byte) []byte { return b[:len(b)/2] }),
		header(func(b []byte) []byte { return b[:100] }),
		zipBomb(f, 64),
	}
}
