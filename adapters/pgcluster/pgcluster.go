// Package pgcluster runs private PostgreSQL servers for tests (test
// support only): a primary made with initdb and a streaming replica of it
// made with pg_basebackup -R, each in a temporary folder on a free
// loopback port, trusting local connections. The machine's own server is
// not touched, so its pg_hba.conf need not allow replication.
package pgcluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Cluster is one private PostgreSQL server.
type Cluster struct {
	bin, dir string
	// Port is the loopback port it listens on.
	Port   int
	asUser []string // runuser prefix when running as root
}

// URL is the postgres:// URL of its postgres database, with a short
// connect timeout.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", c.Port)
}

func (c *Cluster) run(name string, args ...string) error {
	argv := append(append(append([]string{}, c.asUser...), filepath.Join(c.bin, name)), args...)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, out)
	}
	return nil
}

func (c *Cluster) pgctl(args ...string) error {
	return c.run("pg_ctl", append([]string{"-D", c.dir, "-l", c.dir + ".log", "-w", "-t", "60"}, args...)...)
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() error { return c.pgctl("start") }

// Stop stops the server at once (immediate shutdown, as a crash would).
// Stopping a stopped server does nothing.
func (c *Cluster) Stop() error {
	if _, err := os.Stat(filepath.Join(c.dir, "postmaster.pid")); err != nil {
		return nil
	}
	return c.pgctl("stop", "-m", "immediate")
}

// Pair is a primary and its streaming replica.
type Pair struct {
	Primary, Standby *Cluster
	root             string
}

// StartPair makes and starts a primary and a streaming replica of it with
// the server binaries in bin (initdb, pg_ctl, pg_basebackup). As root,
// the servers run as the postgres user. Close stops both and removes
// their folders.
func StartPair(bin string) (*Pair, error) {
	root, err := os.MkdirTemp("", "takhtabush-pgcluster-")
	if err != nil {
		return nil, err
	}
	var asUser []string
	if os.Geteuid() == 0 { // initdb and postgres refuse to run as root
		asUser = []string{"runuser", "-u", "postgres", "--"}
		if err := exec.Command("chown", "postgres", root).Run(); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("chown postgres %s: %w", root, err)
		}
	}
	p := &Pair{root: root}
	ports, err := freePorts(2)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	p.Primary = &Cluster{bin: bin, dir: filepath.Join(root, "primary"), Port: ports[0], asUser: asUser}
	p.Standby = &Cluster{bin: bin, dir: filepath.Join(root, "standby"), Port: ports[1], asUser: asUser}
	if err := p.start(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Pair) start() error {
	if err := p.Primary.run("initdb", "-D", p.Primary.dir, "-U", "postgres", "--auth=trust", "--no-sync"); err != nil {
		return err
	}
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"+
		"wal_level = replica\nmax_wal_senders = 4\nfsync = off\nsynchronous_commit = off\nshared_buffers = 16MB\n", p.Primary.Port, p.root)
	if err := appendFile(filepath.Join(p.Primary.dir, "postgresql.conf"), conf); err != nil {
		return err
	}
	if err := p.Primary.Start(); err != nil {
		return err
	}
	if err := p.Primary.run("pg_basebackup", "-h", "127.0.0.1", "-p", fmt.Sprint(p.Primary.Port), "-U", "postgres",
		"-D", p.Standby.dir, "-R", "-X", "stream", "--no-sync"); err != nil {
		return err
	}
	if err := appendFile(filepath.Join(p.Standby.dir, "postgresql.auto.conf"), fmt.Sprintf("port = %d\n", p.Standby.Port)); err != nil {
		return err
	}
	return p.Standby.Start()
}

// Close stops both servers and removes their folders.
func (p *Pair) Close() error {
	err := errors.Join(p.Standby.Stop(), p.Primary.Stop())
	// Give the stopped servers a moment to release their files.
	time.Sleep(100 * time.Millisecond)
	return errors.Join(err, os.RemoveAll(p.root))
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// freePorts returns n loopback ports nobody listens on right now.
func freePorts(n int) ([]int, error) {
	var out []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}
