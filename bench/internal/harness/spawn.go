package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// SpawnFunc returns the command that runs the named server as a child
// process; the child must call [Serve] on 127.0.0.1 with the given stdio.
type SpawnFunc func(server string) *exec.Cmd

// SelfSpawn re-executes the running binary with args(server) appended, e.g.
// "-serve engine -addr 127.0.0.1:0".
func SelfSpawn(args func(server string) []string) (SpawnFunc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return func(server string) *exec.Cmd { return exec.Command(exe, args(server)...) }, nil
}

// child is a running server process as seen from the harness.
type child struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	base   string      // http://host:port
	header http.Header // extra headers the server asked for
	setup  map[string]servers.Setup
	verify bool // the server checks the run's effects at VerifyPath
	client *http.Client
	exited chan error
	// scenarios are the server's scenarios with their bodies bound, and
	// targets what the load sends for each (kept across phases so that
	// call numbers run on through the whole run).
	scenarios []scenario.Scenario
	targets   map[string]target
}

const readyTimeout = 60 * time.Second

// startChild launches the server, telling it the most calls a scenario will
// send, and waits for its ready line; then it fetches the scenarios' setup.
func startChild(spawn SpawnFunc, name string, workers, calls int) (*child, error) {
	return startChildTimeout(spawn, name, workers, calls, readyTimeout)
}

// startChildTimeout is startChild waiting at most wait for the ready line
// (a child seeding a big account takes longer).
func startChildTimeout(spawn SpawnFunc, name string, workers, calls int, wait time.Duration) (*child, error) {
	cmd := spawn(name)
	cmd.Env = append(cmd.Environ(), fmt.Sprintf("%s=%d", CallsEnv, calls))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, stdin: stdin, exited: make(chan error, 1)}
	readyc := make(chan ready, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent && strings.HasPrefix(line, readyPrefix) {
				var r ready
				if json.Unmarshal([]byte(strings.TrimPrefix(line, readyPrefix)), &r) == nil {
					readyc <- r
					sent = true
				}
				continue
			}
			fmt.Fprintf(os.Stderr, "[%s] %s\n", name, line)
		}
		c.exited <- cmd.Wait()
	}()
	select {
	case r := <-readyc:
		c.base = "http://" + r.Addr
		c.header = r.Header
		c.verify = r.Verify
	case err := <-c.exited:
		return nil, fmt.Errorf("server %s exited before it was ready: %v", name, err)
	case <-time.After(wait):
		c.stop()
		return nil, fmt.Errorf("server %s not ready after %v", name, wait)
	}
	c.client = &http.Client{Transport: &http.Transport{
		MaxIdleConns:        4 * workers,
		MaxIdleConnsPerHost: 2 * workers,
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true,
	}}
	if err := c.getJSON(SetupPath, &c.setup); err != nil {
		c.stop()
		return nil, fmt.Errorf("%s: setup: %w", name, err)
	}
	return c, nil
}

// stats fetches the server process's counters.
func (c *child) stats() (Stats, error) {
	var s Stats
	err := c.getJSON(StatsPath, &s)
	return s, err
}

// getJSON decodes the answer of a GET of one of the child's control paths.
func (c *child) getJSON(path string, v any) error {
	resp, err := c.client.Get(c.base + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: HTTP %d", c.name, path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// verifyRun asks the child to check the run's effects, given the number
// of requests each scenario sent; it returns the child's summary.
func (c *child) verifyRun(ctx context.Context, calls map[string]int) (string, error) {
	body, err := json.Marshal(verifyRequest{Calls: calls})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+VerifyPath, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v verifyResponse
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("%s: verify: %w", c.name, err)
	}
	if v.Error != "" {
		return "", fmt.Errorf("%s: verify: %s", c.name, v.Error)
	}
	return v.Summary, nil
}

// stopTimeout bounds a child's exit: a Postgres server drops its
// database (DROP DATABASE checkpoints, seconds on a busy machine).
const stopTimeout = 30 * time.Second

// stop asks the child to exit by closing its stdin, and kills it if it does not.
func (c *child) stop() error {
	if c.client != nil {
		c.client.CloseIdleConnections()
	}
	_ = c.stdin.Close()
	select {
	case err := <-c.exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("server %s: %w", c.name, err)
		}
		return nil
	case <-time.After(stopTimeout):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("server %s did not exit; killed", c.name)
	}
}
