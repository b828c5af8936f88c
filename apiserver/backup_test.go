package apiserver_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// What OPERATIONS.md says about backups, tried: a populated instance is
// backed up while it serves (SQLite: VACUUM INTO, and the online backup
// API through the sqlite3 shell when installed; Postgres: pg_dump
// --format=custom), the backup is restored into a fresh database
// (SQLite: the file; Postgres: pg_restore into an empty database), every
// table holds the same rows, and a service started on the restored
// database serves the same decks to the same key.
func TestBackupAndRestore(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		seedByAgent(t, e, key)
		_, before := e.rpc(t, listDecks, bearer(key))

		var restored string
		if path, ok := strings.CutPrefix(dbURL, "sqlite:"); ok {
			backup := filepath.Join(t.TempDir(), "backup.db")
			live, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := live.Exec(`VACUUM INTO ?`, backup); err != nil {
				t.Fatalf("VACUUM INTO while serving: %v", err)
			}
			live.Close()
			if _, err := exec.LookPath("sqlite3"); err == nil {
				// SQLite's online backup API, through its shell, gives the same rows.
				online := filepath.Join(t.TempDir(), "online.db")
				run(t, "sqlite3", path, ".backup '"+online+"'")
				if diff := compareTables(t, "sqlite:"+backup, "sqlite:"+online); diff != "" {
					t.Errorf("the online backup differs from VACUUM INTO's: %s", diff)
				}
			}
			fresh := filepath.Join(t.TempDir(), "restored", "takhtabush.db")
			if err := os.MkdirAll(filepath.Dir(fresh), 0o700); err != nil {
				t.Fatal(err)
			}
			copyFile(t, backup, fresh)
			restored = "sqlite:" + fresh
		} else {
			dump := filepath.Join(t.TempDir(), "takhtabush.dump")
			run(t, "pg_dump", "--format=custom", "--file="+dump, dbURL)
			restored = freshPostgres(t)
			run(t, "pg_restore", "--no-owner", "--exit-on-error", "--dbname="+restored, dump)
		}
		if diff := compareTables(t, dbURL, restored); diff != "" {
			t.Fatalf("the restored database differs: %s", diff)
		}
		r := newEnv(t, restored, nil)
		resp, after := r.rpc(t, listDecks, bearer(key))
		if resp.StatusCode != http.StatusOK || string(after) != string(before) {
			t.Errorf("the restored service answers list_decks %d %s, want %s", resp.StatusCode, after, before)
		}
	})
}

// run runs a command and fails the test when it fails.
func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// compareTables reads every table of two databases (SQLite files or
// Postgres URLs) and describes the first difference, or returns "".
func compareTables(t *testing.T, a, b string) string {
	t.Helper()
	da, db := dumpTables(t, a), dumpTables(t, b)
	if len(da) < 10 {
		t.Fatalf("only %d tables read", len(da))
	}
	for name, rows := range da {
		other, ok := db[name]
		switch {
		case !ok:
			return "table " + name + " is missing"
		case !slices.Equal(rows, other):
			return fmt.Sprintf("table %s: %d rows, restored %d", name, len(rows), len(other))
		}
	}
	if len(db) != len(da) {
		return fmt.Sprintf("%d tables, restored %d", len(da), len(db))
	}
	return ""
}

// dumpTables reads every row of every table as text, sorted per table.
func dumpTables(t *testing.T, dbURL string) map[string][]string {
	t.Helper()
	driver, dsn, list := "postgres", dbURL, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`
	if path, ok := strings.CutPrefix(dbURL, "sqlite:"); ok {
		driver, dsn, list = "sqlite", path, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	}
	conn, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	var names []string
	rows, err := conn.QueryContext(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	out := map[string][]string{}
	for _, name := range names {
		rows, err := conn.QueryContext(ctx, `SELECT * FROM "`+name+`"`)
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("reading %s: %v", name, err)
			}
			var b strings.Builder
			for _, v := range vals {
				fmt.Fprintf(&b, "%v|%q,", v.Valid, v.String)
			}
			lines = append(lines, b.String())
		}
		rows.Close()
		slices.Sort(lines)
		out[name] = lines
	}
	return out
}
