package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointsOutsideTheCommit: a commit that takes the write-ahead log
// far over SQLite's automatic checkpoint (1,000 pages) leaves the database
// file as it was, so no commit pays for a checkpoint; the store's own
// checkpoint then copies the log into the file.
func TestCheckpointsOutsideTheCommit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		period time.Duration
		copied bool
	}{
		{"no checkpoint in the commit", time.Hour, false},
		{"the store's checkpoint", 50 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "c.db")
			s, err := Open(ctx, path, func(o *options) { o.checkpointEvery = tc.period })
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			db := s.DB()
			if _, err := db.ExecContext(ctx, `CREATE TABLE filler (b BLOB)`); err != nil {
				t.Fatal(err)
			}
			// Whatever the migrations left in the log reaches the file first.
			if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
			before := size(t, path)
			// 3,000 rows of 4 KiB: some 3,000 pages in one commit.
			if _, err := db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO filler SELECT randomblob(4096) FROM n`); err != nil {
				t.Fatal(err)
			}
			if !tc.copied {
				if after := size(t, path); after != before {
					t.Fatalf("the database file went from %d to %d bytes in the commit: it checkpointed", before, after)
				}
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for size(t, path) < before+10<<20 {
				if time.Now().After(deadline) {
					t.Fatalf("the database file is %d bytes 10 s after the commit, %d before: no checkpoint copied the log", size(t, path), before)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// size is the size of the file at path.
func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
