package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"github.com/takhtabush/takhtabush/adapters/sqlstore"
)

// dialect is PostgreSQL's sqlstore.Dialect: a generated tsvector column
// with the 'simple' configuration for text, jsonb containment for tags.
type dialect struct{}

// Name names the dialect.
func (dialect) Name() string { return "postgres" }

// MatchText builds a tsquery: every word required, the last one as a prefix.
func (dialect) MatchText(_ context.Context, _ sqlstore.Querier, param string, words []string) (string, any, error) {
	parts := make([]string, len(words))
	for i, w := range words {
		w = strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w)
		parts[i] = "'" + w + "'"
	}
	parts[len(parts)-1] += ":*"
	return `c.search @@ to_tsquery('simple', ` + param + `)`, strings.Join(parts, " & "), nil
}

// MatchColumns names the column MatchText's condition tests
// (sqlstore.RowTextMatcher).
func (dialect) MatchColumns() string { return "c.search" }

// ShareLock locks the rows a SELECT reads against deletion (and key
// changes) until the transaction ends.
func (dialect) ShareLock() string { return " FOR KEY SHARE" }

// HasTag tests the JSON array of tags for the tag.
func (dialect) HasTag(param string) string {
	return `EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.tags::jsonb) AS t(v) WHERE lower(t.v) = lower(` + param + `::text))`
}

// Classify maps SQLSTATE codes and connection failures.
func (dialect) Classify(err error) sqlstore.ErrorClass {
	if e := pq.As(err); e != nil {
		switch e.Code {
		case pqerror.UniqueViolation:
			return sqlstore.ClassUnique
		case pqerror.ForeignKeyViolation:
			return sqlstore.ClassForeignKey
		case pqerror.TRSerializationFailure, pqerror.TRDeadlockDetected:
			return sqlstore.ClassConflict
		}
		switch e.Code.Class() {
		// connection exception, insufficient resources, object not in
		// prerequisite state (55P03: lock_timeout expired), operator
		// intervention (57014: statement_timeout, 57P0x: shutting down,
		// cannot connect now): the database is away or busy, not broken.
		case "08", "53", "55", "57":
			return sqlstore.ClassUnavailable
		}
		return sqlstore.ClassOther
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne) {
		return sqlstore.ClassUnavailable
	}
	return sqlstore.ClassOther
}

// Placeholder returns the n-th sequential placeholder.
func (dialect) Placeholder(n int) string { return "$" + strconv.Itoa(n) }
