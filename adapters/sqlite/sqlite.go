// Package sqlite is Takhtabush's embedded store: ports.Database on a SQLite
// file through modernc.org/sqlite (pure Go, driver "sqlite"), with FTS5
// card search. It is the default, so the service runs on a bare machine.
//
// Open configures the file for concurrent use: WAL journal, busy_timeout
// 5000 ms, synchronous NORMAL, foreign keys on, BEGIN IMMEDIATE for every
// transaction, a bounded pool, and transactions serialised in the process
// (sqlstore.Config.SerializeTx), so concurrent writers queue instead of
// failing with SQLITE_BUSY. The write-ahead log is copied into the file
// by a checkpoint of the store's own, every checkpointEvery, not by the
// commit that fills it; past walRestartAt, or when the log is idle, the
// checkpoint empties the log file, so it stays bounded under steady load.
package sqlite

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/takhtabush/takhtabush/adapters/internal/migrate"
	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/adapters/sqlstore"
	"github.com/takhtabush/takhtabush/contracts"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the SQLite migrations (goose SQL files).
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the directory is embedded
	}
	return sub
}

// Memory is the path that opens a private database in a temporary file,
// removed by Close (a true ":memory:" database would give every pooled
// connection its own empty database).
const Memory = ":memory:"

// DefaultMaxOpenConns bounds the connection pool: one writer at a time and
// a few readers (WAL lets them read while it writes).
const DefaultMaxOpenConns = 6

// checkpointEvery is how often a Store copies the write-ahead log into the
// database file (a passive checkpoint: it waits for no reader or writer).
// SQLite's own automatic checkpoint, off in DSN, runs in the commit that
// takes the log over 1,000 pages, fsync included, while the process's
// one writer turn (SerializeTx) is still held: every other write waited
// for it. An import publishing 20,000 notes held the turn 2.4–3.3 s with
// the checkpoint here, 5.5–6.5 s with the automatic one, at 2.0–2.8 and
// 2.9–3.0 s of CPU (BenchmarkImportPackage's publish-tx-s, runs
// alternating on one machine under a load of 8).
const checkpointEvery = time.Second

// A passive checkpoint copies the log into the file but never waits, so
// under steady load (a reader always in the log) the log never restarts
// from its beginning and its file grows without bound: 2.25 GB for a
// 48 MB database after 90 s of 40 agents. Past walRestartAt, and when
// the log is idle, the checkpoint is a TRUNCATE: it takes the writer
// lock, waits for the readers in the log to finish and empties the file.
// It waits at most checkpointBusy (the checkpoint connection's own busy
// timeout, not the store's 5 s, since every writer waits while it does)
// and is tried again at the next tick. journalSizeLimit is the size a
// log file is cut back to when a writer restarts it.
const (
	walRestartAt     = 64 << 20
	checkpointBusy   = 100 * time.Millisecond
	journalSizeLimit = 16 << 20
)

// Store is the SQLite store. Its methods are those of sqlstore.Store plus
// Migrate.
type Store struct {
	*sqlstore.Store
	cleanup func() error
	stop    func() // stops the checkpoints and closes their connection
	wal     *walStats
}

// Option changes how Open opens a store.
type Option func(*options)

type options struct {
	maxOpenConns    int
	noMigrate       bool
	counter         *sqlcount.Counter
	checkpointEvery time.Duration
	walRestartAt    int64
}

// WithMaxOpenConns sets the connection pool's size (default DefaultMaxOpenConns).
func WithMaxOpenConns(n int) Option { return func(o *options) { o.maxOpenConns = n } }

// WithCounter counts the statements and transactions the store runs on c
// (statement budgets, benchmarks).
func WithCounter(c *sqlcount.Counter) Option { return func(o *options) { o.counter = c } }

// WithoutMigrate makes Open skip the migrations; call Migrate yourself.
func WithoutMigrate() Option { return func(o *options) { o.noMigrate = true } }

// DSN returns the modernc.org/sqlite data source name Open uses for path.
// It turns SQLite's automatic checkpoints off: a Store checkpoints on its
// own, and a connection opened otherwise leaves the log to grow until the
// database's last connection closes, which checkpoints it.
func DSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "wal_autocheckpoint(0)") // Open's store checkpoints (checkpointEvery)
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", journalSizeLimit))
	q.Set("_txlock", "immediate")
	return path + "?" + q.Encode()
}

// checkpointDSN is DSN with the checkpoint connection's short busy timeout.
func checkpointDSN(path string) string {
	return strings.Replace(DSN(path), "busy_timeout%285000%29", fmt.Sprintf("busy_timeout%%28%d%%29", checkpointBusy.Milliseconds()), 1)
}

// Open opens (creating it when absent) the SQLite database at path and,
// unless WithoutMigrate is given, applies the migrations. Path Memory
// opens a private temporary database. Unavailable when the file cannot be
// opened.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{maxOpenConns: DefaultMaxOpenConns, checkpointEvery: checkpointEvery, walRestartAt: walRestartAt}
	for _, opt := range opts {
		opt(&o)
	}
	cleanup := func() error { return nil }
	if path == Memory {
		dir, err := os.MkdirTemp("", "takhtabush-sqlite-")
		if err != nil {
			return nil, unavailable(err)
		}
		path = filepath.Join(dir, "memory.db")
		cleanup = func() error { return os.RemoveAll(dir) }
	} else if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, unavailable(err)
		}
	}
	if err := createPrivate(path); err != nil {
		_ = cleanup()
		return nil, unavailable(err)
	}
	db, err := sqlcount.Open("sqlite", DSN(path), o.counter)
	if err != nil {
		_ = cleanup()
		return nil, unavailable(err)
	}
	db.SetMaxOpenConns(max(o.maxOpenConns, 2))
	db.SetMaxIdleConns(max(o.maxOpenConns, 2))
	s := &Store{Store: sqlstore.New(db, sqlstore.Config{Dialect: dialect{}, SerializeTx: true}), cleanup: cleanup, stop: func() {}, wal: &walStats{}}
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	if !o.noMigrate {
		if err := s.Migrate(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	if s.stop, err = checkpoints(path, o.checkpointEvery, o.walRestartAt, s.Store.WriteTurn, s.wal); err != nil {
		_ = s.Close()
		return nil, unavailable(err)
	}
	return s, nil
}

// Migrate applies the pending migrations. Running it again is a no-op.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.migrate(ctx)
	return err
}

// migrate applies the pending migrations and says how many.
func (s *Store) migrate(ctx context.Context) (int, error) {
	n, err := migrate.Up(ctx, s.DB(), goose.DialectSQLite3, Migrations())
	if err != nil {
		return n, contracts.Internal(fmt.Errorf("sqlite: %w", err))
	}
	return n, nil
}

// Analyze refreshes the query planner's statistics, as after a bulk load
// (Close does it too).
func (s *Store) Analyze(ctx context.Context) error {
	if _, err := s.DB().ExecContext(ctx, "PRAGMA optimize=0x10002"); err != nil {
		return contracts.Internal(fmt.Errorf("sqlite: analyze: %w", err))
	}
	return nil
}

// Close optimises the query planner's statistics, closes the database and
// removes a Memory database's file.
func (s *Store) Close() error {
	s.stop()
	_, _ = s.DB().Exec("PRAGMA optimize")
	return errors.Join(s.Store.Close(), s.cleanup())
}

// createPrivate creates the database file with mode 0600 when it does not
// exist yet. SQLite gives the -wal and -shm files it creates later the
// database file's mode, so they are private too.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// unavailable wraps a failure to open the database.
func unavailable(err error) error {
	return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database cannot be opened", Err: fmt.Errorf("sqlite: %w", err)}
}
