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
	"syscall"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// readyPrefix starts the line a child prints on stdout once it is listening.
const readyPrefix = "MCPBENCH_READY "

// ready is the payload of the ready line.
type ready struct {
	Addr   string      `json:"addr"`
	Header http.Header `json:"header,omitempty"`
}

// Serve is the child-process side: it starts the named server, listens on
// addr, prints the ready line to stdout and serves until stdin is closed (the
// parent exited or asked it to stop) or a termination signal arrives.
func Serve(ctx context.Context, name, addr string, stdout io.Writer, stdin io.Reader) error {
	s, err := servers.Lookup(name)
	if err != nil {
		return err
	}
	in, err := s.Start(ctx)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	defer in.Shutdown()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: withStats(in.Handler), ReadHeaderTimeout: 10 * time.Second}
	line, err := json.Marshal(ready{Addr: ln.Addr().String(), Header: in.Header})
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
