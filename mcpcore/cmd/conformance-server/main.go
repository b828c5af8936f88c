// Command conformance-server serves the conformance fixtures (every test_*
// tool, resource and prompt the official MCP conformance suite calls) on
// the mcpcore engine, over stateless Streamable HTTP at /mcp. It is a test
// fixture: it has no authentication.
//
//	go run ./mcpcore/cmd/conformance-server -addr 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/internal/conformance"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := conformance.NewServer(mcpcore.Options{Logger: logger, DefaultTimeout: time.Minute})
	if err != nil {
		logger.Error("building server", "err", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpcore.NewHTTPHandler(srv, mcpcore.HTTPOptions{}))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		logger.Error("listen", "err", err)
		os.Exit(1)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	logger.Info("conformance server listening", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}
