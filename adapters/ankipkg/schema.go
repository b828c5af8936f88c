package ankipkg

import (
	"context"
	"database/sql"
	"encoding/binary"
	"io"
	"os"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// A package's collection is a SQLite file someone else wrote: before any
// query reads it, checkHeader checks it is a whole SQLite file and
// checkSchema that every table the reader queries is a real table with
// the columns and the integer key its queries rely on. A view (which may
// recurse without end or build a value of any size), a virtual table, a
// generated column or a table without its key (which turns the reader's
// joins quadratic) is refused with its name.

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkHeader reads the file's 100-byte header: the magic string, a page
// size SQLite accepts, file format versions 1 (rollback journal) or 2
// (write-ahead log), and a file holding the pages the header counts.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return contracts.Internal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return contracts.Internal(err)
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:16]) != sqliteMagic {
		return invalid(err, "its collection is not a SQLite database")
	}
	page := int64(binary.BigEndian.Uint16(h[16:18]))
	if page == 1 {
		page = 65536
	}
	if page < 512 || page&(page-1) != 0 {
		return invalid(nil, "its collection has a page size of %d bytes, which SQLite does not write (a power of two from 512 to 65536)", page)
	}
	if h[18] < 1 || h[18] > 2 || h[19] < 1 || h[19] > 2 {
		return invalid(nil, "its collection has file format versions %d/%d, which SQLite 3 does not write", h[18], h[19])
	}
	if int64(h[20]) >= page-480 || h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return invalid(nil, "its collection's header is damaged")
	}
	if st.Size() < page || st.Size()%page != 0 {
		return invalid(nil, "its collection is truncated (%d bytes, not a whole number of its %d-byte pages); export the deck again", st.Size(), page)
	}
	// The page count at 28 is valid when the change counter at 24 matches
	// the one at 92 (SQLite 3.7.0 and later write both).
	if pages := int64(binary.BigEndian.Uint32(h[28:32])); pages > 0 && binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96]) && pages*page > st.Size() {
		return invalid(nil, "its collection is truncated (%d of its %d pages are there); export the deck again", st.Size()/page, pages)
	}
	return nil
}

// shape is what the reader's queries need of one table: its columns and,
// when key is set, that column as the table's integer primary key.
type shape struct {
	table string
	key   string
	cols  []string
}

// legacyShapes are the tables of collection.anki2 and .anki21 the reader
// queries; modernShapes are the schema-18 tables collection.anki21b adds.
var (
	legacyShapes = []shape{
		{"col", "id", []string{"crt", "models", "decks", "dconf"}},
		{"notes", "id", []string{"guid", "mid", "mod", "tags", "flds"}},
		{"cards", "id", []string{"nid", "did", "ord", "mod", "type", "queue", "due", "ivl", "reps", "lapses", "left", "odue", "odid", "data"}},
		{"revlog", "id", []string{"cid", "ease", "ivl", "lastIvl", "factor", "time", "type"}},
	}
	modernShapes = []shape{
		{"notetypes", "id", []string{"name", "config"}},
		{"fields", "", []string{"ntid", "ord", "name"}},
		{"templates", "", []string{"ntid", "ord", "name", "config"}},
		{"deck_config", "id", []string{"config"}},
		{"decks", "id", []string{"name", "kind"}},
	}
)

// checkSchema checks the tables the reader queries, from sqlite_schema
// and table_xinfo, which read the schema without running any of it.
func checkSchema(ctx context.Context, conn *sql.Conn, latest bool) error {
	shapes := legacyShapes
	if latest {
		shapes = append(append([]shape(nil), legacyShapes...), modernShapes...)
	}
	for _, s := range shapes {
		if err := checkTable(ctx, conn, s); err != nil {
			return err
		}
	}
	return nil
}

func checkTable(ctx context.Context, conn *sql.Conn, s shape) error {
	var typ string
	var virtual bool
	err := conn.QueryRowContext(ctx, `SELECT type, coalesce(upper(substr(ltrim(sql), 1, 14)) = 'CREATE VIRTUAL', 0) FROM sqlite_schema WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')`, s.table).Scan(&typ, &virtual)
	switch {
	case err == sql.ErrNoRows:
		return invalid(nil, "its collection has no %s table", s.table)
	case err != nil:
		return invalid(err, "its collection's schema is damaged")
	case typ != "table" || virtual:
		return invalid(nil, "its collection's %s is a view or virtual table, not a table; Anki writes plain tables, so the package was not written by Anki (export the deck again from Anki)", s.table)
	}
	rows, err := conn.QueryContext(ctx, `SELECT name, upper(type), pk, hidden FROM pragma_table_xinfo(?)`, s.table)
	if err != nil {
		return invalid(err, "its collection's schema is damaged")
	}
	defer rows.Close()
	type column struct {
		typ    string
		pk     int
		hidden int
	}
	cols := map[string]column{}
	keys := 0
	for rows.Next() {
		var name string
		var c column
		if err := rows.Scan(&name, &c.typ, &c.pk, &c.hidden); err != nil {
			return invalid(err, "its collection's schema is damaged")
		}
		cols[strings.ToLower(name)] = c
		if c.pk > 0 {
			keys++
		}
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "its collection's schema is damaged")
	}
	for _, name := range s.cols {
		c, ok := cols[strings.ToLower(name)]
		switch {
		case !ok:
			return invalid(nil, "its collection's %s table has no %s column", s.table, name)
		case c.hidden != 0:
			return invalid(nil, "its collection's %s.%s is a generated column; Anki writes stored columns (export the deck again from Anki)", s.table, name)
		}
	}
	if s.key != "" {
		if c, ok := cols[s.key]; !ok || c.pk != 1 || keys != 1 || c.typ != "INTEGER" || c.hidden != 0 {
			return invalid(nil, "its collection's %s table has no integer primary key %s, which Anki's tables have (export the deck again from Anki)", s.table, s.key)
		}
	}
	return nil
}
