package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// WALStats are the write-ahead log's size and the store's checkpoint
// outcomes since Open, for the metrics.
type WALStats struct {
	// LogBytes is the -wal file's size at the last checkpoint tick.
	LogBytes int64
	// Passive counts the passive checkpoints (every tick); PassivePartial
	// those that left frames behind (a reader or writer was in the way).
	Passive, PassivePartial uint64
	// Truncated counts the TRUNCATE checkpoints that emptied the log;
	// TruncateBusy those that gave up after checkpointBusy (tried again
	// next tick); Failed the checkpoints that failed otherwise.
	Truncated, TruncateBusy, Failed uint64
}

// walStats is WALStats, written by the checkpoint loop and read by
// WALStats at any time.
type walStats struct {
	logBytes                                         atomic.Int64
	passive, partial, truncated, truncateBusy, faild atomic.Uint64
}

// WALStats returns the log's size and the checkpoint outcomes so far.
func (s *Store) WALStats() WALStats {
	w := s.wal
	return WALStats{LogBytes: w.logBytes.Load(), Passive: w.passive.Load(), PassivePartial: w.partial.Load(),
		Truncated: w.truncated.Load(), TruncateBusy: w.truncateBusy.Load(), Failed: w.faild.Load()}
}

// checkpoints starts checkpointing the database at path every period, on
// a connection of its own outside the statement counter (busy timeout
// checkpointBusy), and returns the function that stops it (once; later
// calls do nothing). Each tick runs a passive checkpoint; when the log
// file is past restartAt, or the log is idle (no frame added since the
// last tick) and not empty, a TRUNCATE checkpoint follows. A checkpoint
// that fails or finds the database busy is tried again at the next tick.
func checkpoints(path string, period time.Duration, restartAt int64, turn writeTurn, st *walStats) (stop func(), err error) {
	db, err := sql.Open("sqlite", checkpointDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		last := int64(-1) // the log's frames at the last tick
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				last = checkpoint(db, path+"-wal", restartAt, last, turn, st)
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-done
		_ = db.Close()
	}), nil
}

// writeTurn waits for the process's write turn (sqlstore's WriteTurn).
type writeTurn func(context.Context) (release func(), err error)

// checkpoint runs one tick's checkpoints and returns the log's frames.
// The TRUNCATE holds the process's write turn: without it the store's
// writers, queued back to back, take SQLite's write lock before the
// checkpoint's busy handler wakes up, and it never runs under load.
func checkpoint(db *sql.DB, wal string, restartAt, last int64, turn writeTurn, st *walStats) int64 {
	var busy, frames, copied int64
	if err := db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		st.faild.Add(1)
		return -1
	}
	st.passive.Add(1)
	if copied < frames {
		st.partial.Add(1)
	}
	size := fileSize(wal)
	st.logBytes.Store(size)
	if size > restartAt || (frames > 0 && frames == last) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		release, err := turn(ctx)
		cancel()
		if err != nil {
			st.truncateBusy.Add(1)
			return frames
		}
		err = db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied)
		release()
		switch {
		case err == nil && busy == 0:
			st.truncated.Add(1)
			st.logBytes.Store(fileSize(wal))
		case err == nil || isBusy(err):
			st.truncateBusy.Add(1)
		default:
			st.faild.Add(1)
		}
	}
	return frames
}

// fileSize is the size of the file at path, 0 when it is absent.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// isBusy says whether err is SQLite's busy or locked result.
func isBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code()&0xff == sqlite3.SQLITE_BUSY || e.Code()&0xff == sqlite3.SQLITE_LOCKED
}
