// Package sqlstore implements ports.Database once over database/sql for both
// SQL dialects Takhtabush runs on (SQLite through modernc.org/sqlite and
// PostgreSQL through lib/pq). The SQL text is shared: both drivers bind
// $1..$N placeholders by number, and both databases understand
// ON CONFLICT DO NOTHING, RETURNING, partial indexes and SAVEPOINT. What
// differs (full-text matching, tag containment, error classification) sits
// behind the small Dialect interface.
//
// Storage conventions: times are BIGINT unix milliseconds UTC, ids are
// TEXT, tags and other JSON values are TEXT holding JSON, booleans are
// BOOLEAN (0/1 in SQLite). Every query is scoped by user_id.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// ErrorClass classifies a driver error.
type ErrorClass int

// The error classes a Dialect recognises.
const (
	ClassOther       ErrorClass = iota // anything else: internal
	ClassUnique                        // a unique or primary key violation: conflict
	ClassForeignKey                    // a foreign key violation: not found
	ClassConflict                      // a serialization failure or deadlock: conflict
	ClassUnavailable                   // busy, locked, connection lost: unavailable
)

// Dialect is what differs between the SQL databases.
type Dialect interface {
	// Name names the dialect ("sqlite", "postgres") in logged causes.
	Name() string
	// MatchText returns a condition on the cards row aliased c that holds
	// when every word appears in its front, back or tags (the last word as
	// a prefix), given that param is the placeholder of the returned
	// argument. words is never empty and holds only letters, marks and
	// digits. q may be queried to pick the condition's form (the cheaper
	// plan for a rare or a common word).
	MatchText(ctx context.Context, q Querier, param string, words []string) (cond string, arg any, err error)
	// HasTag returns a condition on the cards row aliased c that holds when
	// its tags contain the tag bound to param, compared case-insensitively
	// (tags keep the case they were written in).
	HasTag(param string) string
	// Classify says what kind of failure a driver error is.
	Classify(err error) ErrorClass
	// Placeholder returns the placeholder of the n-th argument (from 1) of
	// a statement whose placeholders appear once each, in argument order:
	// the bulk INSERTs. SQLite's "?" parses and binds in constant time,
	// where "$n" costs a linear lookup per parameter in long statements.
	Placeholder(n int) string
}

// TextWindower is what a Dialect implements when its text index can be
// read over a range of a row key that follows the cards' id order in
// practice (SQLite: FTS5's rowid is cards.seq, given in insertion order,
// and card ids are time-ordered), so that a text search can look for its
// page among the next cards by id instead of reading every match: a
// common word on a big account matches tens of thousands of cards, and
// reading them all costs milliseconds however few a page shows. The
// answer stays exact whatever the correlation; only its cost depends on it.
type TextWindower interface {
	// MatchTextIn returns a condition on col, a cards.seq value, that holds
	// when that card matches words as MatchText's condition would, reading
	// the index only for keys between lo and hi (SQL expressions, both
	// bounds included), given that param is the placeholder of the
	// returned argument.
	MatchTextIn(col, param, lo, hi string, words []string) (cond string, arg any)
}

// RowTextMatcher is what a Dialect implements when MatchText's condition
// tests columns of the card row itself (PostgreSQL: its stored tsvector,
// with a GIN index) and the planner picks between walking the cards by
// id, testing each, and reading every match to sort it by estimates a
// parameterised text query does not have: on 100,000 cards the first
// cost 125 ms for a word on one card, the second 800 ms for a word on
// every fourth. Search then chooses itself (searchRowWindow): the next
// cards by id, tested row by row, and when they hold too few matches,
// every match first.
type RowTextMatcher interface {
	// MatchColumns lists the columns of cards c (as "c.col, ...") that
	// MatchText's condition reads.
	MatchColumns() string
}

// ShareLocker is what a Dialect implements when reading rows can lock
// them against deletion until the transaction ends (Postgres: FOR KEY
// SHARE); a dialect whose writers are serialised (SQLite) needs none.
type ShareLocker interface {
	// ShareLock returns the clause that ends such a SELECT.
	ShareLock() string
}

// BulkCacher is what a Dialect implements when a statement that writes
// many rows runs faster with a larger page cache on its connection
// (SQLite: PRAGMA cache_size; its default 2 MB makes every index insert
// of a large copy a read of the page from the file).
type BulkCacher interface {
	// BulkCache returns the statements that grow the connection's cache
	// for a bulk write and that restore it afterwards.
	BulkCache() (grow, restore string)
}

// Querier runs queries: a *sql.DB or a *sql.Tx.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Config configures a Store.
type Config struct {
	// Dialect is the database's dialect. Required.
	Dialect Dialect
	// SerializeTx runs one transaction at a time in this process (InTx and
	// the store's own multi-statement writes wait for their turn). SQLite
	// needs it: it has one writer, and queueing in Go is fairer than
	// busy-waiting in the driver. Other processes are still kept out by
	// the database's own locking (busy_timeout).
	SerializeTx bool
	// MaxTx bounds the transactions open at once in this process (0: no
	// bound beyond the pool). Set it below the pool's size: a transaction
	// holds a connection until it ends, so the connections above MaxTx
	// stay free for queries outside transactions, and a transaction never
	// waits for a connection that only other waiting transactions could
	// give back. SerializeTx means MaxTx 1.
	MaxTx int
	// NoStatementCache runs every query unprepared (named prepared
	// statements do not survive a transaction-pooling proxy such as
	// pgbouncer).
	NoStatementCache bool
}

// Store is a ports.Database over a *sql.DB. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	d    Dialect
	gate chan struct{} // one slot per transaction allowed at once; nil when unbounded
	root *handle
	stmt *stmtCache
}

var _ ports.Database = (*Store)(nil)

// New returns a Store over db, which must hold the schema of the dialect's
// migrations. The Store owns db: Close closes it.
func New(db *sql.DB, cfg Config) *Store {
	if cfg.Dialect == nil {
		panic("sqlstore: Config.Dialect is required")
	}
	s := &Store{db: db, d: cfg.Dialect}
	switch {
	case cfg.SerializeTx:
		s.gate = make(chan struct{}, 1)
	case cfg.MaxTx > 0:
		s.gate = make(chan struct{}, cfg.MaxTx)
	}
	s.stmt = newStmtCache(db, cfg.NoStatementCache)
	s.root = &handle{s: s, q: cachedQuerier{c: s.stmt}}
	return s
}

// DB returns the underlying database handle, for migrations and tests.
func (s *Store) DB() *sql.DB { return s.db }

// Ping checks the database answers. Unavailable when it does not.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is unreachable", Err: err}
	}
	return nil
}

// Close releases the database.
func (s *Store) Close() error {
	s.stmt.close()
	return s.db.Close()
}

// InTx runs fn in one transaction, as ports.TxRunner says: it commits when
// fn returns nil; when fn returns an error, everything is rolled back and
// the error is returned unchanged; when fn panics, everything is rolled
// back and the panic continues. fn must not call InTx or the Store's own
// methods that write (it would wait for itself under SerializeTx): it uses
// tx.
//
// Inside a call transaction whose ctx says a failure ends the call
// (ports.FailureEndsCall), fn joins the transaction without a savepoint
// of its own: when it fails, the call transaction can only roll back.
func (s *Store) InTx(ctx context.Context, fn func(tx ports.Stores) error) error {
	if c := s.joined(ctx); c != nil && ports.FailureEndsCallOf(ctx) {
		return c.join(ctx, func(h *handle) error { return fn(h) })
	}
	return s.runTx(ctx, func(h *handle) error { return fn(h) })
}

// InCallTx runs fn in one transaction that the store calls made with fn's
// ctx join, as ports.TxRunner says: calls on the Store itself run on it,
// and InTx (and the stores' own multi-statement writes) nest in it under a
// savepoint. It commits when fn returns nil and rolls everything back when
// fn returns an error or panics. Inside another call transaction fn joins
// that one.
func (s *Store) InCallTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.joined(ctx) != nil {
		return fn(ctx)
	}
	return s.runTx(ctx, func(h *handle) error {
		c := &callTx{s: s, h: h}
		defer c.ended.Store(true)
		if err := fn(context.WithValue(ctx, callTxKey{}, c)); err != nil {
			return err
		}
		return c.failed // a join failed: its writes can only be rolled back with the rest
	})
}

// InCall reports whether ctx carries a call transaction of s (see
// InCallTx), which the store calls made with ctx join.
func (s *Store) InCall(ctx context.Context) bool { return s.joined(ctx) != nil }

// callTxKey is the context key of the call transaction (a *callTx).
type callTxKey struct{}

// callTx is a transaction that the store calls made with a context
// carrying it join (see InCallTx). One call uses it at a time.
type callTx struct {
	s      *Store
	h      *handle     // bound to the transaction
	ended  atomic.Bool // fn returned: the transaction is no longer to be joined
	nested int         // savepoints taken so far
	// failed is the error of a join (a nested InTx without a savepoint)
	// that failed: its writes cannot be rolled back alone, so the
	// transaction must not commit.
	failed error
}

// joined returns the call transaction of s that ctx carries, or nil.
func (s *Store) joined(ctx context.Context) *callTx {
	if c, ok := ctx.Value(callTxKey{}).(*callTx); ok && c.s == s && !c.ended.Load() {
		return c
	}
	return nil
}

// nest runs fn on the call transaction under a savepoint of its own name:
// when fn fails, its writes are rolled back and the transaction stays
// usable. A savepoint whose fn succeeded is left for the commit to end
// (releasing it would cost a statement and change nothing): the names
// never repeat, so a later rollback cannot reach the wrong one.
func (c *callTx) nest(ctx context.Context, fn func(h *handle) error) error {
	if c.failed != nil {
		return c.failed
	}
	c.nested++
	name := "sqlstore_call_" + strconv.Itoa(c.nested)
	if _, err := c.h.exec(ctx, "SAVEPOINT "+name); err != nil {
		return c.s.wrap(ctx, err, "savepoint")
	}
	if err := fn(c.h); err != nil {
		if _, rbErr := c.h.exec(ctx, "ROLLBACK TO SAVEPOINT "+name); rbErr != nil {
			return c.s.wrap(ctx, errors.Join(err, rbErr), "rollback to savepoint")
		}
		return err
	}
	return nil
}

// join runs fn on the call transaction without a savepoint (one
// statement less than nest), for work whose failure ends the call: when
// fn fails, the transaction is marked failed, so that it rolls back
// whatever the call does next.
func (c *callTx) join(ctx context.Context, fn func(h *handle) error) error {
	if c.failed != nil {
		return c.failed
	}
	if err := fn(c.h); err != nil {
		c.failed = err
		return err
	}
	return nil
}

// runTx runs fn in a transaction on a handle bound to it. Every query of
// fn runs on the transaction's connection: the statement cache does not
// take a second one (see stmtCache). Once the transaction has ended and
// its connection is back in the pool, the statements it met for the
// first time are prepared for the next ones.
func (s *Store) runTx(ctx context.Context, fn func(h *handle) error) (err error) {
	if c := s.joined(ctx); c != nil {
		// Inside a call transaction, which holds the slot already.
		return c.nest(ctx, fn)
	}
	defer func() {
		if s.stmt.hasPending() {
			s.stmt.preparePending(ctx)
		}
	}()
	release, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return s.inTx(ctx, fn)
}

// inTx runs fn in a transaction; the caller holds a transaction slot.
func (s *Store) inTx(ctx context.Context, fn func(h *handle) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(ctx, err, "begin transaction")
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback() // on an error or a panic; the panic carries on
		}
	}()
	if err := fn(&handle{s: s, q: cachedQuerier{c: s.stmt, tx: tx}, inTx: true}); err != nil {
		return err
	}
	done = true
	if err := tx.Commit(); err != nil {
		return s.wrap(ctx, err, "commit")
	}
	return nil
}

// maxTxWait bounds the wait for a transaction slot, so that a
// transaction started from inside another one (a bug that would wait for
// itself) fails as unavailable instead of hanging, whatever the caller's
// context.
const maxTxWait = 30 * time.Second

// WriteTurn waits, as a transaction does, for a transaction slot (under
// SerializeTx, the process's one write turn) and returns its release:
// SQLite's checkpoint takes it before it stops the writers, so they queue
// in Go meanwhile instead of outracing its lock. Without a bound it
// returns at once. Unavailable when ctx ends first.
func (s *Store) WriteTurn(ctx context.Context) (release func(), err error) { return s.acquire(ctx) }

// acquire waits, at most maxTxWait, for a transaction slot when
// transactions are bounded.
func (s *Store) acquire(ctx context.Context) (release func(), err error) {
	if s.gate == nil {
		return func() {}, nil
	}
	select {
	case s.gate <- struct{}{}:
		return func() { <-s.gate }, nil
	default:
	}
	timer := time.NewTimer(maxTxWait)
	defer timer.Stop()
	select {
	case s.gate <- struct{}{}:
		return func() { <-s.gate }, nil
	case <-ctx.Done():
		return nil, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is busy; retry later", Err: ctx.Err()}
	case <-timer.C:
		return nil, contracts.Errorf(contracts.KindUnavailable, "the database is busy; retry later")
	}
}

// Users returns the user store outside any transaction.
func (s *Store) Users() ports.UserStore { return s.root.Users() }

// Decks returns the deck store outside any transaction.
func (s *Store) Decks() ports.DeckStore { return s.root.Decks() }

// Cards returns the card store outside any transaction.
func (s *Store) Cards() ports.CardStore { return s.root.Cards() }

// Notes returns the note store outside any transaction.
func (s *Store) Notes() ports.NoteStore { return s.root.Notes() }

// Reviews returns the review store outside any transaction.
func (s *Store) Reviews() ports.ReviewStore { return s.root.Reviews() }

// Sessions returns the study session store outside any transaction.
func (s *Store) Sessions() ports.StudySessionStore { return s.root.Sessions() }

// Keys returns the API key store outside any transaction.
func (s *Store) Keys() ports.APIKeyStore { return s.root.Keys() }

// WebSessions returns the web session store outside any transaction.
func (s *Store) WebSessions() ports.WebSessionStore { return s.root.WebSessions() }

// Exposure returns the exposure store outside any transaction.
func (s *Store) Exposure() ports.ExposureStore { return s.root.Exposure() }

// Audit returns the audit store outside any transaction.
func (s *Store) Audit() ports.AuditStore { return s.root.Audit() }

// Idempotency returns the idempotency store outside any transaction.
func (s *Store) Idempotency() ports.IdempotencyStore { return s.root.Idempotency() }

// Media returns the media store outside any transaction.
func (s *Store) Media() ports.MediaStore { return s.root.Media() }

// String names the store for logs.
func (s *Store) String() string { return fmt.Sprintf("sqlstore(%s)", s.d.Name()) }
