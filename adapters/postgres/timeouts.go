package postgres

import (
	"context"
	"database/sql/driver"
	"net"
	neturl "net/url"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/takhtabush/takhtabush/contracts"
)

// Every wait on the database is bounded. Open adds these to a URL that
// does not set them:
//
//   - connect_timeout (seconds): how long opening a connection may take;
//   - statement_timeout and lock_timeout, sent as session parameters when
//     the connection opens, so the server ends a statement that runs too
//     long or waits too long for a lock (57014 and 55P03: unavailable);
//   - io_timeout (ours, removed before connecting): how long a connection
//     may wait for the server to send anything. It ends what the server
//     cannot: a blackholed connection, whose queries would otherwise wait
//     for the operating system's TCP timeout (minutes).
//
// Behind pgbouncer in transaction pooling, session parameters do not
// survive and pgbouncer refuses them at start-up: set statement_timeout
// and lock_timeout on the role instead (ALTER ROLE … SET), list them in
// pgbouncer's ignore_startup_parameters, and keep io_timeout.
const (
	DefaultConnectTimeout   = 5 * time.Second
	DefaultStatementTimeout = 15 * time.Second
	DefaultLockTimeout      = 5 * time.Second
	DefaultIOTimeout        = 20 * time.Second
	// IOTimeoutParam is the URL parameter that sets the I/O timeout (a Go
	// duration such as 20s).
	IOTimeoutParam = "io_timeout"
)

// withTimeouts fills the timeout parameters a postgres:// URL leaves out
// and takes io_timeout out of it.
func withTimeouts(raw string) (string, time.Duration, error) {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw, DefaultIOTimeout, nil // a key=value DSN: taken as it is
	}
	u, err := neturl.Parse(raw)
	if err != nil {
		return "", 0, &contracts.Error{Kind: contracts.KindInvalid, Message: "the database URL is malformed"}
	}
	q := u.Query()
	io := DefaultIOTimeout
	if v := q.Get(IOTimeoutParam); v != "" {
		if io, err = time.ParseDuration(v); err != nil || io <= 0 {
			return "", 0, contracts.Errorf(contracts.KindInvalid, "the database URL's %s must be a duration such as 20s", IOTimeoutParam)
		}
	}
	q.Del(IOTimeoutParam)
	defaults := map[string]string{
		"connect_timeout":   itoa(int(DefaultConnectTimeout / time.Second)),
		"statement_timeout": itoa(int(DefaultStatementTimeout / time.Millisecond)),
		"lock_timeout":      itoa(int(DefaultLockTimeout / time.Millisecond)),
	}
	for k, v := range defaults {
		if !q.Has(k) {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), io, nil
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// boundedDriver is lib/pq whose connections fail a read or write that
// waits longer than io for the server.
type boundedDriver struct {
	io time.Duration
}

// Open implements driver.Driver.
func (d boundedDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext.
func (d boundedDriver) OpenConnector(dsn string) (driver.Connector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	c.Dialer(boundedDialer{io: d.io})
	return boundedConnector{Connector: c, d: d}, nil
}

// boundedConnector reports boundedDriver as its driver.
type boundedConnector struct {
	*pq.Connector
	d boundedDriver
}

// Driver implements driver.Connector.
func (c boundedConnector) Driver() driver.Driver { return c.d }

// boundedDialer dials with net.Dialer and bounds each read and write.
type boundedDialer struct {
	io time.Duration
}

// Dial implements pq.Dialer.
func (d boundedDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialTimeout implements pq.Dialer.
func (d boundedDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

// DialContext implements pq.DialerContext.
func (d boundedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	if _, ok := ctx.Deadline(); !ok {
		nd.Timeout = DefaultConnectTimeout
	}
	c, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &boundedConn{Conn: c, io: d.io}, nil
}

// boundedConn gives every read and write its own deadline, io from its
// start: a server that stops answering fails the call (a net.Error the
// dialect classifies as unavailable) instead of hanging it.
type boundedConn struct {
	net.Conn
	io time.Duration
}

func (c *boundedConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.io)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *boundedConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.io)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
