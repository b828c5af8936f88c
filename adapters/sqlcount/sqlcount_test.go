package sqlcount_test

import (
	"context"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
)

func TestCounts(t *testing.T) {
	var c sqlcount.Counter
	db, err := sqlcount.Open("sqlite", filepath.Join(t.TempDir(), "c.db"), &c)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	st, err := db.PrepareContext(ctx, `INSERT INTO t (n) VALUES (?)`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var traced []string
	c.Trace(func(q string) { traced = append(traced, q) })
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM t WHERE n >= ?`, 1).Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v", n, err)
	}
	c.Trace(nil)
	if len(traced) != 1 || traced[0] != `SELECT COUNT(*) FROM t WHERE n >= ?` {
		t.Fatalf("traced %q", traced)
	}
	// CREATE, three prepared inserts, one query; one transaction.
	if got, want := c.Read(), (sqlcount.Counts{Statements: 5, Transactions: 1}); got != want {
		t.Fatalf("counts = %+v, want %+v", got, want)
	}
	if d := c.Read().Sub(sqlcount.Counts{Statements: 2}); d.Statements != 3 {
		t.Fatalf("Sub = %+v", d)
	}
	// Work on an Uncounted context (background jobs) is not counted, nor
	// traced: neither its statements, prepared or not, nor its transactions.
	c.Trace(func(q string) { t.Errorf("traced uncounted %q", q) })
	before := c.Read()
	bg := sqlcount.Uncounted(ctx)
	if err := db.QueryRowContext(bg, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("count = %d, %v", n, err)
	}
	btx, err := db.BeginTx(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := btx.StmtContext(bg, st).ExecContext(bg, 9); err != nil {
		t.Fatal(err)
	}
	if _, err := btx.ExecContext(bg, `DELETE FROM t WHERE n = 9`); err != nil {
		t.Fatal(err)
	}
	if err := btx.Commit(); err != nil {
		t.Fatal(err)
	}
	c.Trace(nil)
	if got := c.Read(); got != before {
		t.Fatalf("uncounted work counted: %+v, before %+v", got, before)
	}
	// Without a counter, Open is sql.Open.
	plain, err := sqlcount.Open("sqlite", filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
}
