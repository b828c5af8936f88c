package servers

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver"
)

// PostgresEnv names the Postgres server the Postgres rows run on (a
// direct connection, no pooler); each server gets a fresh database there,
// dropped when it stops. Without it those rows are not run.
const PostgresEnv = "TAKHTABUSH_TEST_POSTGRES_URL"

// Optional is a server that cannot run on every machine.
type Optional interface {
	// Unavailable says why the server cannot run here, or "" when it can.
	Unavailable() string
}

func postgresUnavailable(pg bool) string {
	if pg && os.Getenv(PostgresEnv) == "" {
		return PostgresEnv + " is not set"
	}
	return ""
}

// benchDB is a fresh database for one server: a SQLite file in a
// temporary directory or a new Postgres database.
type benchDB struct {
	pg    bool
	url   string // the service's --db
	dir   string // SQLite: the temporary directory
	admin string // Postgres: the base URL, to drop the database
	name  string // Postgres: the database's name
}

// newBenchDB creates the empty database.
func newBenchDB(ctx context.Context, pg bool) (*benchDB, error) {
	if !pg {
		dir, err := os.MkdirTemp("", "mcpbench-")
		if err != nil {
			return nil, err
		}
		return &benchDB{dir: dir, url: "sqlite:" + filepath.Join(dir, "takhtabush.db")}, nil
	}
	base := os.Getenv(PostgresEnv)
	if base == "" {
		return nil, errors.New(PostgresEnv + " is not set")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	db := &benchDB{pg: true, admin: base, name: "mcpbench_" + hex.EncodeToString(b[:])}
	if err := db.adminExec(ctx, "CREATE DATABASE "+db.name); err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	u.Path = "/" + db.name
	db.url = u.String()
	return db, nil
}

// adminExec runs a statement on the base database, without the store's
// statement and I/O timeouts (dropping a large database takes a while on
// a busy machine).
func (db *benchDB) adminExec(ctx context.Context, stmt string) error {
	u, err := url.Parse(db.admin)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("statement_timeout", "0")
	q.Set(postgres.IOTimeoutParam, "10m")
	u.RawQuery = q.Encode()
	s, err := postgres.Open(ctx, u.String(), postgres.WithoutMigrate())
	if err != nil {
		return err
	}
	_, err = s.DB().ExecContext(ctx, stmt)
	return errors.Join(err, s.Close())
}

// app opens the service on the database (running the migrations),
// counting its statements on counter when it is not nil.
func (db *benchDB) app(ctx context.Context, counter *sqlcount.Counter) (*apiserver.App, error) {
	return apiserver.New(ctx, apiserver.Config{
		DatabaseURL: db.url,
		Secret:      "mcpbench-server-key",
		Version:     "mcpbench",
		// As `takhtabush serve` logs by default (text, info: one access
		// line per request), but into io.Discard.
		Logger:           slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})),
		StatementCounter: counter,
		// Limits set explicitly (issue 10 §2): far above any measured run,
		// so no call is refused, yet every call pays for the checks as in
		// production (the rate and concurrency limiters, the daily write
		// counter and the caps).
		Limits: apiserver.Limits{RatePerSecond: 1e9, Burst: 1 << 30, Concurrent: 1 << 20,
			DailyWrites: benchDailyWrites, MaxCards: benchMaxCards, MaxDecks: 1 << 40},
	})
}

// The daily write quota and card cap both the full stack and the database
// floor check every mutation against: far above any measured run.
const (
	benchDailyWrites = 1 << 40
	benchMaxCards    = 1 << 40
)

// open opens the store the service would, with the service's settings.
func (db *benchDB) open(ctx context.Context, counter *sqlcount.Counter) (*sql.DB, func() error, error) {
	if db.pg {
		s, err := postgres.Open(ctx, db.url, postgres.WithoutMigrate(), postgres.WithCounter(counter))
		if err != nil {
			return nil, nil, err
		}
		return s.DB(), s.Close, nil
	}
	s, err := sqlite.Open(ctx, filepath.Join(db.dir, "takhtabush.db"), sqlite.WithoutMigrate(), sqlite.WithCounter(counter))
	if err != nil {
		return nil, nil, err
	}
	return s.DB(), s.Close, nil
}

// close removes the database.
func (db *benchDB) close() error {
	if db.pg {
		return db.adminExec(context.Background(), "DROP DATABASE IF EXISTS "+db.name+" WITH (FORCE)")
	}
	return os.RemoveAll(db.dir)
}
