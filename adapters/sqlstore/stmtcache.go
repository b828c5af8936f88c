package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the statement cache; once it is full, new
// query texts are prepared per call, as without a cache.
const maxCachedStatements = 256

// maxCachedQueryLen keeps texts that grow with their input (multi-row
// inserts, long IN lists) out of the cache, so they cannot crowd out the
// fixed queries that run on every request.
const maxCachedQueryLen = 1024

// stmtCache keeps one prepared statement per query text, so SQLite and
// Postgres parse and plan each query once per connection instead of once
// per call (parsing was 10–16% of a request's CPU on SQLite).
type stmtCache struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: make(map[string]*sql.Stmt)}
}

// get returns the prepared statement of query, or nil when the cache is
// full or preparing failed (the caller then runs the query unprepared and
// sees the real error).
func (c *stmtCache) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.RLock()
	st, ok := c.m[query]
	full := len(c.m) >= maxCachedStatements
	c.mu.RUnlock()
	if ok || full || len(query) > maxCachedQueryLen {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	st, err := c.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	c.m[query] = st
	return st
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}

// cachedQuerier runs queries through the cache, on the database or, when
// tx is set, on that transaction's connection.
type cachedQuerier struct {
	c  *stmtCache
	tx *sql.Tx
}

func (q cachedQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	st := q.c.get(ctx, query)
	if st == nil || q.tx == nil {
		return st
	}
	return q.tx.StmtContext(ctx, st) // closed with the transaction
}

func (q cachedQuerier) direct() querier {
	if q.tx != nil {
		return q.tx
	}
	return q.c.db
}

// ExecContext implements querier.
func (q cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.direct().ExecContext(ctx, query, args...)
}

// QueryContext implements querier.
func (q cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.direct().QueryContext(ctx, query, args...)
}

// QueryRowContext implements querier.
func (q cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.direct().QueryRowContext(ctx, query, args...)
}
