// Package pgbouncer starts Debian's pgbouncer in transaction pooling mode
// for tests and the load test (test support only): on a free loopback
// port, with a generated configuration that pools every database of one
// Postgres server, trusting the users it is told about.
//
// Transaction pooling keeps no session state between transactions, so
// whoever connects through it must not rely on session parameters
// (pgbouncer is told to ignore the start-up parameters Takhtabush's
// Postgres adapter sends: set the timeouts on the database or the role
// instead) nor on named prepared statements (statement_cache=off in the
// URL).
package pgbouncer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultBinary is where Debian installs pgbouncer.
const DefaultBinary = "/usr/sbin/pgbouncer"

// IgnoredStartupParameters are the start-up parameters pgbouncer drops
// instead of refusing the connection: what lib/pq and the Postgres
// adapter send as session parameters.
const IgnoredStartupParameters = "extra_float_digits,statement_timeout,lock_timeout,search_path,synchronous_commit"

// Bouncer is a running pgbouncer.
type Bouncer struct {
	cmd  *exec.Cmd
	done chan error
	// Addr is where it listens (127.0.0.1:port).
	Addr string
	log  string
}

// Start starts bin (DefaultBinary when empty) in dir, pooling every
// database of the Postgres server at upstream (host:port) in transaction
// mode for the given users, trusted without a password. Stop ends it.
func Start(ctx context.Context, bin, dir, upstream string, users ...string) (*Bouncer, error) {
	if bin == "" {
		bin = DefaultBinary
	}
	host, pgPort, err := net.SplitHostPort(upstream)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: upstream %q: %w", upstream, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	// pgbouncer refuses to run as root; it then runs as postgres (below),
	// which must reach its folder.
	asRoot := os.Geteuid() == 0
	if asRoot {
		for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 && strings.HasPrefix(d, os.TempDir()) {
				_ = os.Chmod(d, st.Mode().Perm()|0o011)
			}
		}
		_ = os.Chmod(dir, 0o777)
	}
	var auth strings.Builder
	for _, u := range users {
		fmt.Fprintf(&auth, "%q \"\"\n", u)
	}
	logFile := filepath.Join(dir, "pgbouncer.log")
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = %s
logfile = %s
`, host, pgPort, port, filepath.Join(dir, "users.txt"), IgnoredStartupParameters, logFile)
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(auth.String()), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		return nil, err
	}
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if asRoot {
		args = append([]string{"-u", "postgres"}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &Bouncer{cmd: cmd, done: make(chan error, 1), Addr: fmt.Sprintf("127.0.0.1:%d", port), log: logFile}
	go func() { b.done <- cmd.Wait() }()
	for start := time.Now(); ; {
		c, err := net.DialTimeout("tcp", b.Addr, time.Second)
		if err == nil {
			c.Close()
			return b, nil
		}
		select {
		case err := <-b.done:
			logText, _ := os.ReadFile(b.log)
			return nil, fmt.Errorf("pgbouncer exited (%v): %s%s", err, stderr.String(), logText)
		case <-ctx.Done():
			b.Stop()
			return nil, ctx.Err()
		default:
		}
		if time.Since(start) > 10*time.Second {
			b.Stop()
			return nil, errors.New("pgbouncer did not listen within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL returns direct (a postgres:// URL of the upstream server) pointed at
// pgbouncer instead, with the statement cache off.
func (b *Bouncer) URL(direct string) (string, error) {
	u, err := url.Parse(direct)
	if err != nil {
		return "", err
	}
	u.Host = b.Addr
	q := u.Query()
	q.Set("statement_cache", "off")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Stop ends pgbouncer.
func (b *Bouncer) Stop() {
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// Pid is pgbouncer's process id.
func (b *Bouncer) Pid() int { return b.cmd.Process.Pid }

// freePort returns a loopback port nobody listens on right now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
