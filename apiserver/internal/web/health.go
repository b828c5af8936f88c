package web

import (
	"context"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
	"net/http"
	"time"
)

// Healthz answers 200 while the process serves.
func Healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// ReadyTimeout bounds /readyz whatever the database does.
const ReadyTimeout = 2 * time.Second

// Readyz answers 200 when ping (the database) succeeds within
// ReadyTimeout, and 503 otherwise: a ping that does not return (a
// blackholed connection) is abandoned, so the probe always answers in time.
func Readyz(ping func(context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		done := make(chan error, 1) // buffered: an abandoned ping finishes alone
		go func() { done <- ping(ctx) }()
		var err error
		select {
		case err = <-done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(httperr.Status(contracts.KindUnavailable))
			_, _ = w.Write([]byte(`{"status":"unavailable","database":"down"}` + "\n"))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready","database":"up"}` + "\n"))
	}
}
