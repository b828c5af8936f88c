package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// maxCachedStatements bounds the statement cache; once it is full, new
// query texts are prepared per call, as without a cache.
const maxCachedStatements = 256

// maxCachedQueryLen keeps texts that grow with their input (multi-row
// inserts, long IN lists) out of the cache, so they cannot crowd out the
// fixed queries that run on every request.
const maxCachedQueryLen = 1024

// maxPrepareWait bounds preparing the statements a transaction met for
// the first time, after it ended.
const maxPrepareWait = 2 * time.Second

// stmtCache keeps one prepared statement per query text, so SQLite and
// Postgres parse and plan each query once per connection instead of once
// per call (parsing was 10–16% of a request's CPU on SQLite).
//
// It never takes a pooled connection while a transaction holds one (the
// Postgres pool stall of issue 10 §1.1: every connection held by a
// transaction waiting for a second one to prepare a statement on): inside
// a transaction a statement missing from the cache runs unprepared on the
// transaction's own connection and is noted; the transaction's runner
// prepares the noted statements on the pool after it has released its
// connection. A statement found in the cache is bound to the
// transaction's connection (database/sql prepares it there, on that
// connection, the first time). No lock is held while preparing.
type stmtCache struct {
	db  *sql.DB
	off bool // the cache is switched off: every query runs unprepared

	mu      sync.RWMutex
	m       map[string]*sql.Stmt
	pending map[string]struct{} // met inside a transaction, to prepare after it
}

func newStmtCache(db *sql.DB, off bool) *stmtCache {
	return &stmtCache{db: db, off: off, m: make(map[string]*sql.Stmt), pending: make(map[string]struct{})}
}

// cacheable says whether query may enter the cache.
func cacheable(query string) bool { return len(query) <= maxCachedQueryLen }

// lookup returns the cached statement of query, or nil.
func (c *stmtCache) lookup(query string) (st *sql.Stmt, full bool) {
	c.mu.RLock()
	st = c.m[query]
	full = len(c.m) >= maxCachedStatements
	c.mu.RUnlock()
	return st, full
}

// get returns the prepared statement of query, preparing it on the pool
// when missing, or nil when it is not to be cached or preparing failed
// (the caller then runs the query unprepared and sees the real error).
// The caller must hold no pooled connection: get is for queries outside
// transactions.
func (c *stmtCache) get(ctx context.Context, query string, long bool) *sql.Stmt {
	if c.off {
		return nil
	}
	st, full := c.lookup(query)
	if st != nil || full || (!long && !cacheable(query)) {
		return st
	}
	return c.prepare(ctx, query)
}

// getInTx returns the cached statement of query, or nil when it is not
// cached yet; then the query is noted for preparePending. It never
// touches the pool.
func (c *stmtCache) getInTx(query string, long bool) *sql.Stmt {
	if c.off {
		return nil
	}
	st, full := c.lookup(query)
	if st != nil || full || (!long && !cacheable(query)) {
		return st
	}
	c.mu.Lock()
	if len(c.pending) < maxCachedStatements {
		c.pending[query] = struct{}{}
	}
	c.mu.Unlock()
	return nil
}

// prepare prepares query on the pool (waiting for a connection at most as
// long as ctx allows) and caches it.
func (c *stmtCache) prepare(ctx context.Context, query string) *sql.Stmt {
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[query]; ok { // a concurrent caller got there first
		_ = st.Close()
		return old
	}
	if len(c.m) >= maxCachedStatements {
		_ = st.Close()
		return nil
	}
	c.m[query] = st
	return st
}

// preparePending prepares the statements transactions noted, within
// maxPrepareWait. The caller must hold no pooled connection.
func (c *stmtCache) preparePending(ctx context.Context) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	queries := make([]string, 0, len(c.pending))
	for q := range c.pending {
		queries = append(queries, q)
		delete(c.pending, q)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), maxPrepareWait)
	defer cancel()
	for _, q := range queries {
		if st, _ := c.lookup(q); st == nil {
			c.prepare(ctx, q)
		}
	}
}

// hasPending says whether transactions noted statements to prepare.
func (c *stmtCache) hasPending() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.pending) > 0
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
	clear(c.pending)
}

// cachedQuerier runs queries through the cache, on the database or, when
// tx is set, on that transaction's connection (and then only on it).
type cachedQuerier struct {
	c  *stmtCache
	tx *sql.Tx
}

// in returns q bound to the call transaction ctx carries (see
// Store.InCallTx), when q is not bound to a transaction already.
func (q cachedQuerier) in(ctx context.Context) cachedQuerier {
	if q.tx == nil {
		if c, ok := ctx.Value(callTxKey{}).(*callTx); ok && c.s.stmt == q.c && !c.ended.Load() {
			q.tx = c.h.q.(cachedQuerier).tx
		}
	}
	return q
}

func (q cachedQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	return q.stmtOf(ctx, query, false)
}

// stmtOf is stmt; long admits a text longer than maxCachedQueryLen (a
// bulk statement whose texts the caller keeps few).
func (q cachedQuerier) stmtOf(ctx context.Context, query string, long bool) *sql.Stmt {
	if q.tx == nil {
		return q.c.get(ctx, query, long)
	}
	st := q.c.getInTx(query, long)
	if st == nil {
		return nil
	}
	return q.tx.StmtContext(ctx, st) // prepared on the tx's connection when needed; closed with the transaction
}

func (q cachedQuerier) direct() querier {
	if q.tx != nil {
		return q.tx
	}
	return q.c.db
}

// ExecContext implements querier.
func (q cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q = q.in(ctx)
	if st := q.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.direct().ExecContext(ctx, query, args...)
}

// execBulk runs a bulk statement of one of a few fixed shapes (see
// insertBatches) prepared, whatever its length.
func (q cachedQuerier) execBulk(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q = q.in(ctx)
	if st := q.stmtOf(ctx, query, true); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.direct().ExecContext(ctx, query, args...)
}

// queryBulk is execBulk for a statement that returns rows.
func (q cachedQuerier) queryBulk(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q = q.in(ctx)
	if st := q.stmtOf(ctx, query, true); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.direct().QueryContext(ctx, query, args...)
}

// QueryContext implements querier.
func (q cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q = q.in(ctx)
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.direct().QueryContext(ctx, query, args...)
}

// QueryRowContext implements querier.
func (q cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	q = q.in(ctx)
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.direct().QueryRowContext(ctx, query, args...)
}
