// Package postgres is Takhtabush's production store: ports.Database on
// PostgreSQL through lib/pq (driver "postgres"), with tsvector card
// search. Several stateless service instances may share one database:
// nothing needed for correctness lives in process memory, concurrent
// reviews are decided by conditional updates (optimistic versions), and
// migrations take a Postgres advisory lock (goose's session locker).
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	neturl "net/url"
	"strings"
	"time"

	_ "github.com/lib/pq" // registers the "postgres" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/takhtabush/takhtabush/adapters/internal/migrate"
	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/adapters/sqlstore"
	"github.com/takhtabush/takhtabush/contracts"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the PostgreSQL migrations (goose SQL files).
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the directory is embedded
	}
	return sub
}

// DefaultMaxOpenConns bounds each instance's connection pool.
const DefaultMaxOpenConns = 16

// Store is the PostgreSQL store. Its methods are those of sqlstore.Store
// plus Migrate.
type Store struct {
	*sqlstore.Store
	noLock bool
	pooled bool // statement_cache=off: behind a transaction pooler
}

// Option changes how Open opens a store.
type Option func(*options)

type options struct {
	maxOpenConns int
	noMigrate    bool
	counter      *sqlcount.Counter
	noLock       bool // tests: each migrates a private schema, so skip the database-wide lock
	noPing       bool // a replica that is away at start: opened anyway
}

// withoutPing makes Open skip checking that the database answers.
func withoutPing() Option { return func(o *options) { o.noPing = true } }

// WithMaxOpenConns sets the connection pool's size (default DefaultMaxOpenConns).
func WithMaxOpenConns(n int) Option { return func(o *options) { o.maxOpenConns = n } }

// WithCounter counts the statements and transactions the store runs on c
// (statement budgets, benchmarks).
func WithCounter(c *sqlcount.Counter) Option { return func(o *options) { o.counter = c } }

// WithoutMigrate makes Open skip the migrations; call Migrate yourself.
func WithoutMigrate() Option { return func(o *options) { o.noMigrate = true } }

// StatementCacheParam is the URL query parameter that switches the
// statement cache off: statement_cache=off (named prepared statements do
// not survive pgbouncer's transaction pooling). Open removes it before
// connecting, and with "off" also sends each query's parse, bind and
// execute in one exchange (lib/pq's binary_parameters=yes, unless the URL
// sets it), so no unnamed statement outlives a pooled server connection
// either; "on" (the default) keeps the cache.
const StatementCacheParam = "statement_cache"

// TxSlots returns how many transactions an instance with a pool of n
// connections runs at once: a quarter of the connections (at least one)
// stays free for queries outside transactions, so a transaction never
// waits for a connection only other waiting transactions could return.
func TxSlots(n int) int { return max(n-max(n/4, 1), 1) }

// Open connects to the database at url (postgres://user[:password]@host[:port]/db?sslmode=…)
// and, unless WithoutMigrate is given, applies the migrations. The URL
// may add statement_cache=off (StatementCacheParam). Invalid when the URL
// is malformed; unavailable when the database does not answer.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	o := options{maxOpenConns: DefaultMaxOpenConns}
	for _, opt := range opts {
		opt(&o)
	}
	url, noCache, err := statementCache(url)
	if err != nil {
		return nil, err
	}
	url, ioTimeout, err := withTimeouts(url)
	if err != nil {
		return nil, err
	}
	drv := boundedDriver{io: ioTimeout}
	conn, err := drv.OpenConnector(url)
	if err != nil {
		// The URL may carry a password: keep it out of the error.
		return nil, &contracts.Error{Kind: contracts.KindInvalid, Message: "the database URL is malformed"}
	}
	if o.counter != nil {
		conn = sqlcount.Connector(drv, url, o.counter)
	}
	db := sql.OpenDB(conn)
	n := max(o.maxOpenConns, 2)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(30 * time.Minute)
	cfg := sqlstore.Config{Dialect: dialect{}, MaxTx: TxSlots(n), NoStatementCache: noCache}
	s := &Store{Store: sqlstore.New(db, cfg), noLock: o.noLock, pooled: noCache}
	if o.noPing {
		return s, nil
	}
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
	return s, nil
}

// Migrate applies the pending migrations under a lock, so instances
// starting together apply each migration once: a session advisory lock,
// or, behind a transaction pooler (statement_cache=off), where a session
// lock could be taken on one server connection and released on another,
// a lock row in the goose_lock table. Running it again is a no-op.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.migrate(ctx)
	return err
}

// migrate applies the pending migrations and says how many.
func (s *Store) migrate(ctx context.Context) (int, error) {
	var opts []goose.ProviderOption
	switch {
	case s.noLock:
	case s.pooled:
		locker, err := lock.NewPostgresTableLocker(lock.WithTableLockTimeout(time.Second, 300), lock.WithTableHeartbeatInterval(2*time.Second))
		if err != nil {
			return 0, contracts.Internal(fmt.Errorf("postgres: %w", err))
		}
		opts = append(opts, goose.WithLocker(locker))
	default:
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return 0, contracts.Internal(fmt.Errorf("postgres: %w", err))
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	n, err := migrate.Up(ctx, s.DB(), goose.DialectPostgres, Migrations(), opts...)
	if err != nil {
		return n, contracts.Internal(fmt.Errorf("postgres: %w", err))
	}
	return n, nil
}

// Analyze refreshes the query planner's statistics now, as autovacuum
// would shortly after a bulk load.
func (s *Store) Analyze(ctx context.Context) error {
	if _, err := s.DB().ExecContext(ctx, "ANALYZE"); err != nil {
		return contracts.Internal(fmt.Errorf("postgres: analyze: %w", err))
	}
	return nil
}

// statementCache removes StatementCacheParam from a postgres:// URL and
// says whether it switched the cache off. Other forms pass unchanged.
func statementCache(raw string) (string, bool, error) {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw, false, nil
	}
	u, err := neturl.Parse(raw)
	if err != nil {
		// The URL may carry a password: keep it out of the error.
		return "", false, &contracts.Error{Kind: contracts.KindInvalid, Message: "the database URL is malformed"}
	}
	q := u.Query()
	if !q.Has(StatementCacheParam) {
		return raw, false, nil
	}
	v := q.Get(StatementCacheParam)
	q.Del(StatementCacheParam)
	u.RawQuery = q.Encode()
	switch v {
	case "off":
		// Without binary_parameters, lib/pq runs a query with arguments
		// as two exchanges (parse and describe, then bind and execute),
		// each ending in a Sync: outside a transaction, a transaction
		// pooler may hand the second to another server connection, which
		// knows no such unnamed statement (26000, or a bind that does
		// not match: 08P01). binary_parameters sends all of it at once.
		if !q.Has("binary_parameters") {
			q.Set("binary_parameters", "yes")
			u.RawQuery = q.Encode()
		}
		return u.String(), true, nil
	case "on":
		return u.String(), false, nil
	}
	return "", false, contracts.Errorf(contracts.KindInvalid, "the database URL's %s must be on or off", StatementCacheParam)
}
