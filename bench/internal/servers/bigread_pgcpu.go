package servers

import (
	"context"
	"database/sql"
	"sync"

	"github.com/takhtabush/takhtabush/bench/internal/loadtest"
)

// backendCPU measures the CPU the Postgres backends serving the bench
// database spend: the user plus system time in /proc/PID/stat of every
// backend pg_stat_activity lists for the database (Postgres runs on this
// machine), except the one this probe queries through. Its own query's
// backend is left out, so the figure is the app's connections' work.
type backendCPU struct {
	db    *sql.DB
	close func() error

	mu    sync.Mutex
	last  map[int]float64 // each backend's CPU seconds at the last read
	total float64         // CPU seconds accumulated over every backend seen
}

// newBackendCPU opens the probe's own connection to the database.
func newBackendCPU(ctx context.Context, bdb *benchDB) (*backendCPU, error) {
	db, closeDB, err := bdb.open(ctx, nil)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &backendCPU{db: db, close: closeDB, last: map[int]float64{}}, nil
}

// read returns the backends' CPU time so far, in nanoseconds: for each
// backend alive now, what it spent since the previous read (all of it for
// one first seen). A backend that exited between two reads loses what it
// spent after the earlier one; the pool keeps its connections through a
// measurement, so none is expected to.
func (b *backendCPU) read() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	rows, err := b.db.QueryContext(context.Background(),
		`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return -1
	}
	defer rows.Close()
	now := map[int]float64{}
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			return -1
		}
		now[pid] = loadtest.ProcCPU(pid)
	}
	if rows.Err() != nil {
		return -1
	}
	for pid, t := range now {
		b.total += t - b.last[pid]
	}
	b.last = now
	return int64(b.total * 1e9)
}
