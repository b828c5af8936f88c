package sqlite

import (
	"errors"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/takhtabush/takhtabush/adapters/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect: FTS5 for text, json_each for tags.
type dialect struct{}

func (dialect) Name() string { return "sqlite" }

// MatchText matches the FTS5 index: every word as a phrase, the last one
// as a prefix.
func (dialect) MatchText(param string, words []string) (string, any) {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
	}
	b.WriteByte('*')
	return `c.seq IN (SELECT rowid FROM cards_fts WHERE cards_fts MATCH ` + param + `)`, b.String()
}

// HasTag looks the tag up in the JSON array of tags.
func (dialect) HasTag(param string) string {
	return `EXISTS (SELECT 1 FROM json_each(c.tags) WHERE json_each.value = ` + param + `)`
}

// Classify maps SQLite result codes (extended codes are on in modernc).
func (dialect) Classify(err error) sqlstore.ErrClass {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return sqlstore.ClassOther
	}
	switch code := e.Code(); {
	case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return sqlstore.ClassUnique
	case code == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return sqlstore.ClassForeignKey
	case code&0xff == sqlite3.SQLITE_BUSY, code&0xff == sqlite3.SQLITE_LOCKED, code&0xff == sqlite3.SQLITE_INTERRUPT:
		return sqlstore.ClassUnavailable
	}
	return sqlstore.ClassOther
}
