package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/sqlstore"
	"github.com/takhtabush/takhtabush/contracts"
)

// The database, its WAL and shared-memory files are created private
// (0600), like the secret file, even under a permissive umask.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "tb.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.DB().Exec(`CREATE TABLE IF NOT EXISTS t (x)`); err != nil { // writes the WAL
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), perm)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the data directory: %v, %v; want no group or other access", fi.Mode(), err)
	}
}

// SQLite refusing to open a file or staying busy is "unavailable", not
// "internal": the caller may retry.
func TestClassifyUnavailable(t *testing.T) {
	// SQLITE_CANTOPEN: a database file inside a directory that does not exist.
	db, err := sql.Open("sqlite", DSN(filepath.Join(t.TempDir(), "missing", "x.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Ping()
	if err == nil {
		t.Fatal("opening a file in a missing directory succeeded")
	}
	if c := (dialect{}).Classify(err); c != sqlstore.ClassUnavailable {
		t.Errorf("Classify(%v) = %v, want unavailable", err, c)
	}

	// SQLITE_BUSY: a second connection writes while the first holds the
	// write lock, with no busy timeout.
	path := filepath.Join(t.TempDir(), "busy.db")
	a, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	tx, err := a.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	b, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.Exec(`INSERT INTO t VALUES (1)`)
	if err == nil {
		t.Fatal("a second writer got in")
	}
	if c := (dialect{}).Classify(err); c != sqlstore.ClassUnavailable {
		t.Errorf("Classify(%v) = %v, want unavailable", err, c)
	}

	// Open itself reports an unopenable database as unavailable.
	if _, err := Open(context.Background(), filepath.Join("/proc", "no", "such", "x.db")); !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Errorf("Open on an impossible path: %v, want unavailable", err)
	}
}
