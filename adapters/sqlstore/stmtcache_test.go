package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	c := newStmtCache(db, false)
	q := cachedQuerier{c: c}
	for i := range 3 {
		if _, err := q.ExecContext(ctx, `INSERT INTO t (n) VALUES ($1)`, i); err != nil {
			t.Fatal(err)
		}
	}
	// A statement prepared outside runs inside a transaction too.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := (cachedQuerier{c: c, tx: tx}).QueryRowContext(ctx, `SELECT COUNT(*) FROM t WHERE n >= $1`, 1).Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Query texts that vary stop being cached once it is full, and still run.
	for i := range maxCachedStatements + 10 {
		if err := q.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d = %d, %v", i, n, err)
		}
	}
	if len(c.m) != maxCachedStatements {
		t.Fatalf("cache holds %d statements, bound %d", len(c.m), maxCachedStatements)
	}
	// A query that cannot be prepared reports its real error.
	if _, err := q.ExecContext(ctx, `INSERT INTO nope VALUES (1)`); err == nil {
		t.Fatal("a bad query succeeded")
	}
	c.close()
	if len(c.m) != 0 {
		t.Fatal("close kept statements")
	}
}

// TestStmtCacheInTxUsesOnlyItsConnection pins the fix of the Postgres pool
// stall (issue 10 §1.1): on a pool of one connection held by a
// transaction, queries new to the cache still run, on that connection,
// instead of waiting for a second one that never comes; once the
// transaction has ended, they are prepared for the next.
func TestStmtCacheInTxUsesOnlyItsConnection(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	s := New(db, Config{Dialect: fakeDialect{}, SerializeTx: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const insert, count = `INSERT INTO t (n) VALUES ($1)`, `SELECT COUNT(*) FROM t WHERE n >= $1`
	err = s.runTx(ctx, func(h *handle) error {
		for i := range 3 {
			if _, err := h.exec(ctx, insert, i); err != nil {
				return err
			}
		}
		var n int
		return h.q.QueryRowContext(ctx, count, 1).Scan(&n)
	})
	if err != nil {
		t.Fatalf("a transaction on a one-connection pool: %v", err)
	}
	for _, q := range []string{insert, count} {
		if st, _ := s.stmt.lookup(q); st == nil {
			t.Errorf("%q was not prepared after the transaction", q)
		}
	}
	if s.stmt.hasPending() {
		t.Error("statements still pending after the transaction")
	}
	// Warm: the cached statements bind to the transaction's connection.
	err = s.runTx(ctx, func(h *handle) error {
		var n int
		if err := h.q.QueryRowContext(ctx, count, 0).Scan(&n); err != nil {
			return err
		}
		if n != 3 {
			return fmt.Errorf("count = %d, want 3", n)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("warm transaction: %v", err)
	}
}

// TestStmtCacheOff runs every query unprepared and caches nothing.
func TestStmtCacheOff(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, Config{Dialect: fakeDialect{}, NoStatementCache: true})
	ctx := context.Background()
	if _, err := s.root.exec(ctx, `CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	err = s.runTx(ctx, func(h *handle) error {
		_, err := h.exec(ctx, `INSERT INTO t (n) VALUES ($1)`, 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.root.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if len(s.stmt.m) != 0 || s.stmt.hasPending() {
		t.Fatalf("the switched-off cache holds %d statements", len(s.stmt.m))
	}
}

// fakeDialect is enough of a Dialect for the cache tests.
type fakeDialect struct{}

func (fakeDialect) Name() string { return "sqlite" }
func (fakeDialect) MatchText(context.Context, Querier, string, []string) (string, any, error) {
	return "", nil, nil
}
func (fakeDialect) HasTag(string) string      { return "" }
func (fakeDialect) Classify(error) ErrorClass { return ClassOther }
func (fakeDialect) Placeholder(n int) string  { return fmt.Sprintf("$%d", n) }
