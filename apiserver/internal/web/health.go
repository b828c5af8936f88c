package web

import (
	"context"
	"net/http"
	"time"
)

// Healthz answers 200 while the process serves.
func Healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// Readyz answers 200 when ping (the database) succeeds within two
// seconds, and 503 otherwise.
func Readyz(ping func(context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if err := ping(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"unavailable","database":"down"}` + "\n"))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready","database":"up"}` + "\n"))
	}
}
