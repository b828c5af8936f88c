package sqlite

import (
	"context"
	"errors"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/takhtabush/takhtabush/adapters/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect: FTS5 for text, json_each for tags.
type dialect struct{}

// Name names the dialect.
func (dialect) Name() string { return "sqlite" }

// commonMatches is the number of index matches from which a text search
// scans the cards in id order and probes the matches, rather than reading
// every match and sorting them (about sqrt(limit × cards) for a page of 20
// among 100,000 cards).
const commonMatches = 1000

// ftsQuery is the FTS5 query of words: every word as a phrase, the last
// one as a prefix.
func ftsQuery(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
	}
	b.WriteByte('*')
	return b.String()
}

// MatchText matches the FTS5 index: every word as a phrase, the last one
// as a prefix. For a query with many matches the rowid test is written
// +c.seq, so the planner scans the cards in id order, testing each against
// the set of matches, and stops after a page, instead of fetching and
// sorting every match.
func (dialect) MatchText(ctx context.Context, q sqlstore.Querier, param string, words []string) (string, any, error) {
	expr := ftsQuery(words)
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM cards_fts WHERE cards_fts MATCH $1 LIMIT $2)`, expr, commonMatches).Scan(&n)
	if err != nil {
		return "", nil, err
	}
	seq := "c.seq"
	if n >= commonMatches {
		seq = "+c.seq"
	}
	return seq + ` IN (SELECT rowid FROM cards_fts WHERE cards_fts MATCH ` + param + `)`, expr, nil
}

// MatchTextIn matches the FTS5 index as MatchText does, over the rowids
// (cards.seq) between lo and hi: FTS5 seeks its doclists to the range
// instead of reading them whole (sqlstore.TextWindower).
func (dialect) MatchTextIn(col, param, lo, hi string, words []string) (string, any) {
	return col + ` IN (SELECT rowid FROM cards_fts WHERE cards_fts MATCH ` + param + ` AND rowid BETWEEN ` + lo + ` AND ` + hi + `)`, ftsQuery(words)
}

// BulkCache grows the connection's page cache to 64 MiB for an import's
// publishing copy, so the indexes it writes stay in memory, and restores
// the default 2 MB (-2000) afterwards.
func (dialect) BulkCache() (grow, restore string) {
	return "PRAGMA cache_size = -65536", "PRAGMA cache_size = -2000"
}

// HasTag looks the tag up in the JSON array of tags.
func (dialect) HasTag(param string) string {
	// SQLite's lower() folds ASCII letters only.
	return `EXISTS (SELECT 1 FROM json_each(c.tags) WHERE lower(json_each.value) = lower(` + param + `))`
}

// Classify maps SQLite result codes (extended codes are on in modernc).
func (dialect) Classify(err error) sqlstore.ErrorClass {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return sqlstore.ClassOther
	}
	switch code := e.Code(); {
	case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return sqlstore.ClassUnique
	case code == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return sqlstore.ClassForeignKey
	case code&0xff == sqlite3.SQLITE_BUSY, code&0xff == sqlite3.SQLITE_LOCKED, code&0xff == sqlite3.SQLITE_INTERRUPT,
		code&0xff == sqlite3.SQLITE_CANTOPEN, code&0xff == sqlite3.SQLITE_FULL:
		return sqlstore.ClassUnavailable
	}
	return sqlstore.ClassOther
}

// Placeholder returns the n-th sequential placeholder.
func (dialect) Placeholder(n int) string { return "?" }
