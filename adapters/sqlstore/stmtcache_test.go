package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

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
	c := newStmtCache(db)
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
