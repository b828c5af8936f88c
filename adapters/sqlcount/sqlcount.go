// Package sqlcount wraps a database/sql driver to count the statements
// and transactions that reach the database, for statement budgets
// (tests that fail when a tool runs more statements than it states) and
// for benchmarks that report statements per request.
package sqlcount

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
)

// Counter counts what passes through the wrapped connections. It is safe
// for concurrent use; its zero value is ready.
type Counter struct {
	statements atomic.Int64
	txs        atomic.Int64
	trace      atomic.Pointer[func(query string)]
}

// Trace makes the counter pass each counted statement's text to fn (nil
// stops it), so a test can say which statements a call ran.
func (c *Counter) Trace(fn func(query string)) {
	if fn == nil {
		c.trace.Store(nil)
		return
	}
	c.trace.Store(&fn)
}

// uncountedKey marks a context whose statements are not counted.
type uncountedKey struct{}

// Uncounted returns ctx marked so that the statements and transactions
// run on it (or on a context derived from it) are not counted: for
// background work (scheduled purges, the job runner) that would
// otherwise be counted against whichever request it overlaps.
// Statements run without a context are always counted.
func Uncounted(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncountedKey{}, true)
}

// counted reports whether statements on ctx are counted.
func counted(ctx context.Context) bool {
	return ctx == nil || ctx.Value(uncountedKey{}) == nil
}

// count counts one statement.
func (c *Counter) count(query string) {
	c.statements.Add(1)
	if fn := c.trace.Load(); fn != nil {
		(*fn)(query)
	}
}

// Counts is a reading of a Counter.
type Counts struct {
	// Statements counts executed statements and queries (prepared or not;
	// SAVEPOINT and friends included; BEGIN and COMMIT not).
	Statements int64
	// Transactions counts transactions begun.
	Transactions int64
}

// Sub returns c minus o.
func (c Counts) Sub(o Counts) Counts {
	return Counts{Statements: c.Statements - o.Statements, Transactions: c.Transactions - o.Transactions}
}

// Read returns the counts so far.
func (c *Counter) Read() Counts {
	return Counts{Statements: c.statements.Load(), Transactions: c.txs.Load()}
}

// Connector returns a connector opening d's connections to dsn, counted
// by c. Use it with sql.OpenDB.
func Connector(d driver.Driver, dsn string, c *Counter) driver.Connector {
	return &connector{d: d, dsn: dsn, c: c}
}

type connector struct {
	d   driver.Driver
	dsn string
	c   *Counter
}

// Connect implements driver.Connector.
func (k *connector) Connect(ctx context.Context) (driver.Conn, error) {
	var (
		cn  driver.Conn
		err error
	)
	if dc, ok := k.d.(driver.DriverContext); ok {
		var inner driver.Connector
		if inner, err = dc.OpenConnector(k.dsn); err != nil {
			return nil, err
		}
		cn, err = inner.Connect(ctx)
	} else {
		cn, err = k.d.Open(k.dsn)
	}
	if err != nil {
		return nil, err
	}
	return &conn{Conn: cn, c: k.c}, nil
}

// Driver implements driver.Connector.
func (k *connector) Driver() driver.Driver { return k.d }

// conn counts on one connection. It passes every optional interface
// through, answering driver.ErrSkip where the inner connection lacks it.
type conn struct {
	driver.Conn
	c *Counter
}

var (
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	st, err := c.Conn.Prepare(query)
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: st, c: c.c, query: query}, nil
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	pc, ok := c.Conn.(driver.ConnPrepareContext)
	if !ok {
		return c.Prepare(query)
	}
	st, err := pc.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: st, c: c.c, query: query}, nil
}

func (c *conn) Begin() (driver.Tx, error) { //nolint:staticcheck // the driver.Conn method
	c.c.txs.Add(1)
	return c.Conn.Begin() //nolint:staticcheck // passes the deprecated method through
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	bt, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		if !counted(ctx) {
			return c.Conn.Begin() //nolint:staticcheck // the inner connection has no context variant
		}
		return c.Begin()
	}
	tx, err := bt.BeginTx(ctx, opts)
	if err == nil && counted(ctx) {
		c.c.txs.Add(1)
	}
	return tx, err
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := ex.ExecContext(ctx, query, args)
	if err != driver.ErrSkip && counted(ctx) { //nolint:errorlint // ErrSkip is compared, never wrapped
		c.c.count(query)
	}
	return r, err
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := q.QueryContext(ctx, query, args)
	if err != driver.ErrSkip && counted(ctx) { //nolint:errorlint // ErrSkip is compared, never wrapped
		c.c.count(query)
	}
	return r, err
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.Conn.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// stmt counts the executions of a prepared statement.
type stmt struct {
	driver.Stmt
	c     *Counter
	query string
}

var (
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
)

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) { //nolint:staticcheck // the driver.Stmt method
	s.c.count(s.query)
	return s.Stmt.Exec(args) //nolint:staticcheck // passes the deprecated method through
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) { //nolint:staticcheck // the driver.Stmt method
	s.c.count(s.query)
	return s.Stmt.Query(args) //nolint:staticcheck // passes the deprecated method through
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := s.Stmt.(driver.StmtExecContext)
	if !ok {
		if !counted(ctx) {
			return s.Stmt.Exec(values(args)) //nolint:staticcheck // the inner statement has no context variant
		}
		return s.Exec(values(args))
	}
	if counted(ctx) {
		s.c.count(s.query)
	}
	return ex.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.Stmt.(driver.StmtQueryContext)
	if !ok {
		if !counted(ctx) {
			return s.Stmt.Query(values(args)) //nolint:staticcheck // the inner statement has no context variant
		}
		return s.Query(values(args))
	}
	if counted(ctx) {
		s.c.count(s.query)
	}
	return q.QueryContext(ctx, args)
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// Open opens a database like sql.Open, counting on c when c is not nil.
func Open(driverName, dsn string, c *Counter) (*sql.DB, error) {
	db, err := sql.Open(driverName, dsn)
	if err != nil || c == nil {
		return db, err
	}
	d := db.Driver()
	if err := db.Close(); err != nil {
		return nil, err
	}
	return sql.OpenDB(Connector(d, dsn, c)), nil
}
