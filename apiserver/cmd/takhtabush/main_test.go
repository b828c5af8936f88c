package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// bin is the takhtabush binary built once for the tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "takhtabush-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "takhtabush")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cleanEnv is the environment of a command: nothing of ours inherited.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TAKHTABUSH_") || strings.HasPrefix(name, "MCP_DEV_") || name == "ENVIRONMENT" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// tb runs the binary to completion.
func tb(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv(env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return o.String(), e.String(), 0
}

// mustTB runs the binary and fails the test unless it exits 0.
func mustTB(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, errOut, code := tb(t, env, args...)
	if code != 0 {
		t.Fatalf("takhtabush %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func sqliteDB(t *testing.T) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "data", "takhtabush.db")
}

// freshPostgres creates an empty database on TAKHTABUSH_TEST_POSTGRES_URL's
// server, dropped when the test ends; it skips the test without one.
func freshPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv("TAKHTABUSH_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("TAKHTABUSH_TEST_POSTGRES_URL is not set")
	}
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tb_cli_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

// server is a running `takhtabush serve` process.
type server struct {
	cmd    *exec.Cmd
	stdout *lineBuffer
	stderr *lineBuffer
	done   chan error
}

// lineBuffer collects a stream and lets a test wait for a line.
type lineBuffer struct {
	mu    sync.Mutex
	lines []string
	cond  *sync.Cond
	eof   bool
}

func newLineBuffer(r io.Reader) *lineBuffer {
	lb := &lineBuffer{}
	lb.cond = sync.NewCond(&lb.mu)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lb.mu.Lock()
			lb.lines = append(lb.lines, sc.Text())
			lb.cond.Broadcast()
			lb.mu.Unlock()
		}
		lb.mu.Lock()
		lb.eof = true
		lb.cond.Broadcast()
		lb.mu.Unlock()
	}()
	return lb
}

// wait returns the first line containing s, waiting up to 30 s.
func (lb *lineBuffer) wait(t *testing.T, s string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	timer := time.AfterFunc(30*time.Second, func() { lb.mu.Lock(); lb.cond.Broadcast(); lb.mu.Unlock() })
	defer timer.Stop()
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for {
		for _, l := range lb.lines {
			if strings.Contains(l, s) {
				return l
			}
		}
		if lb.eof || time.Now().After(deadline) {
			t.Fatalf("no line with %q in:\n%s", s, strings.Join(lb.lines, "\n"))
		}
		lb.cond.Wait()
	}
}

func (lb *lineBuffer) String() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return strings.Join(lb.lines, "\n")
}

// serve starts `takhtabush serve` on a free loopback port.
func serve(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = cleanEnv(env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, stdout: newLineBuffer(out), stderr: newLineBuffer(errp), done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve exited with %v\n%s", err, s.stderr.String())
		}
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Error("serve did not stop on SIGTERM")
	}
}

// ctx is a test-long context.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}
