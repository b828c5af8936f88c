package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
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

// TestWALBoundedUnderSteadyReads (issue 29 §1): with a reader always in
// the log and a writer committing without pause, the passive checkpoint
// alone never restarts the log and its file grows with everything
// written (256 MiB here); the store's checkpoint keeps it under 128 MiB
// (restarting it past 64 MiB), and empties it within seconds once the
// load stops.
func TestWALBoundedUnderSteadyReads(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 256 MiB")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.DB()
	if _, err := db.ExecContext(ctx, `CREATE TABLE filler (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Two readers, staggered, each holding a snapshot 40 ms: at every
	// moment one of them reads from the log.
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 20 * time.Millisecond)
			for {
				select {
				case <-stop:
					return
				default:
				}
				rows, err := db.QueryContext(ctx, `SELECT rowid FROM filler`)
				if err != nil {
					t.Error(err)
					return
				}
				rows.Next()
				time.Sleep(40 * time.Millisecond)
				rows.Close()
			}
		}()
	}
	var most int64
	// 1,024 commits of 256 KiB, each in the write turn as the store's
	// transactions, at most one every 15 ms (17 MiB/s): the log may pass
	// the 64 MiB restart by what is written until the next tick (1 s), so
	// an unpaced writer on a fast machine (50 MiB/s, 136 MiB in CI) says
	// more about the machine than the checkpoint.
	pace := time.NewTicker(15 * time.Millisecond)
	defer pace.Stop()
	for range 1024 {
		<-pace.C
		release, err := s.WriteTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.ExecContext(ctx, `INSERT INTO filler VALUES (randomblob(256 << 10))`)
		release()
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, size(t, path+"-wal"))
	}
	close(stop)
	wg.Wait()
	t.Logf("largest log %d MiB; checkpoints %+v", most>>20, s.WALStats())
	if most > 128<<20 {
		t.Errorf("the log reached %d MiB under steady reads, want under 128 MiB", most>>20)
	}
	deadline := time.Now().Add(15 * time.Second)
	for size(t, path+"-wal") > 16<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("the idle log is %d MiB 15 s after the load, want under 16 MiB", size(t, path+"-wal")>>20)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st := s.WALStats(); st.Truncated == 0 || st.Passive == 0 {
		t.Errorf("stats %+v: want passive and truncating checkpoints counted", st)
	}
}
