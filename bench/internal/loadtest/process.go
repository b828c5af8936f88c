package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
)

// SpawnFunc returns the command that runs one server process: it must
// call Serve with the arguments given (the loadtest command re-executes
// itself with -serve).
type SpawnFunc func(dbURL, mediaDir string) *exec.Cmd

// Serve is the server process: the whole service (apiserver.New, as
// `takhtabush serve` builds it, in production mode) on dbURL, listening on
// a free loopback port that it prints on stdout as "listening on ADDR".
// It serves until ctx ends or stdin closes (the parent went away).
func Serve(ctx context.Context, dbURL, mediaDir string, stdout io.Writer, stdin io.Reader) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	app, err := apiserver.New(ctx, apiserver.Config{
		DatabaseURL: dbURL, Addr: ln.Addr().String(), Secret: secret, MediaDir: mediaDir,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Limits: limits,
	})
	if err != nil {
		ln.Close()
		return err
	}
	defer app.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	return app.Serve(ctx, ln, nil)
}

// process is one running server process.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	base  string // http://127.0.0.1:port
	done  chan error
}

// startProcess starts a server and waits until /readyz answers 200.
func startProcess(ctx context.Context, spawn SpawnFunc, mediaDir, dbURL string) (*process, error) {
	cmd := spawn(dbURL, mediaDir)
	cmd.Stderr = &prefixWriter{prefix: "instance: ", w: os.Stderr}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: in, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				lines <- addr
			}
		}
		close(lines)
	}()
	go func() { p.done <- cmd.Wait() }()
	select {
	case addr, ok := <-lines:
		if !ok {
			p.stop()
			return nil, fmt.Errorf("the server exited before listening")
		}
		p.base = "http://" + addr
	case <-time.After(2 * time.Minute):
		p.stop()
		return nil, fmt.Errorf("the server did not listen within 2 minutes")
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	for start := time.Now(); ; {
		resp, err := http.Get(p.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Since(start) > 30*time.Second {
			p.stop()
			return nil, fmt.Errorf("not ready within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop closes the server's stdin (it shuts down gracefully) and kills it
// when it has not exited within 10 s.
func (p *process) stop() {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// pid is the server's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// prefixWriter prefixes each write (a log line) with a label.
type prefixWriter struct {
	prefix string
	w      io.Writer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	_, err := p.w.Write(append([]byte(p.prefix), b...))
	return len(b), err
}

// SelfSpawn is the SpawnFunc of a command that runs Serve when given
// -serve -db URL -media DIR: it re-executes the running binary.
func SelfSpawn() (SpawnFunc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return nil, err
	}
	return func(dbURL, mediaDir string) *exec.Cmd {
		cmd := exec.Command(exe, "-serve", "-db", dbURL, "-media", mediaDir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		return cmd
	}, nil
}
