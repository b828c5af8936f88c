package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// readyPrefix starts the line a child prints on stdout once it is listening.
const readyPrefix = "MCPBENCH_READY "

// CallsEnv names the environment variable through which the harness tells
// a child the most requests any one scenario will send it
// (servers.Options.Calls).
const CallsEnv = "MCPBENCH_CALLS"

// ready is the payload of the ready line. The scenarios' setup data, which
// can be large, is fetched from SetupPath instead.
type ready struct {
	Addr   string      `json:"addr"`
	Header http.Header `json:"header,omitempty"`
	// Verify says the server checks the run's effects at VerifyPath.
	Verify bool `json:"verify,omitempty"`
}

// Serve is the child-process side: it starts the named server, listens on
// addr, prints the ready line to stdout and serves until stdin is closed (the
// parent exited or asked it to stop) or a termination signal arrives.
func Serve(ctx context.Context, name, addr string, stdout io.Writer, stdin io.Reader) error {
	s, err := servers.Lookup(name)
	if err != nil {
		return err
	}
	opts, err := childOptions(s)
	if err != nil {
		return err
	}
	in, err := s.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	defer in.Shutdown()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: withControl(in), ReadHeaderTimeout: 10 * time.Second}
	line, err := json.Marshal(ready{Addr: ln.Addr().String(), Header: in.Header, Verify: in.Verify != nil})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s%s\n", readyPrefix, line); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		stop()
	}()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// childOptions reads the call count the harness passed in CallsEnv; every
// scenario of s may receive that many requests.
func childOptions(s servers.Server) (servers.Options, error) {
	v := os.Getenv(CallsEnv)
	if v == "" {
		return servers.Options{}, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return servers.Options{}, fmt.Errorf("%s=%q: want a call count", CallsEnv, v)
	}
	calls := map[string]int{}
	for _, sc := range s.Scenarios() {
		calls[sc.Name] = n
	}
	return servers.Options{Calls: calls}, nil
}
