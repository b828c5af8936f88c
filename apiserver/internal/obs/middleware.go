package obs

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
)

// UnmatchedRoute is the route label of a request no pattern matched.
const UnmatchedRoute = "unmatched"

// Middleware gives every request an id (a sane incoming X-Request-Id, or a
// new one, echoed on the response), the per-request state, one access log
// line and the HTTP metrics labelled by the mux pattern that served it. It
// logs the path as LoggedPath gives it (no query, no export token) and
// never a header value.
func Middleware(log *slog.Logger, m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !SaneRequestID(id) {
			id = NewRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		st := &Request{ID: id}
		r = r.WithContext(WithRequest(r.Context(), st))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			d := time.Since(start)
			route := r.Pattern
			if route == "" {
				route = UnmatchedRoute
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			if m != nil {
				m.ObserveRequest(route, r.Method, status, d)
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			if !log.Enabled(r.Context(), level) {
				return
			}
			userID, kind, credID, tool := st.snapshot()
			attrs := []slog.Attr{
				slog.String("method", r.Method), slog.String("route", route), slog.String("path", LoggedPath(r)),
				slog.Int("status", status), slog.Float64("duration_ms", float64(d.Microseconds())/1000),
				slog.String("remote", clientip.From(r)),
			}
			if userID != "" {
				attrs = append(attrs, slog.String("user_id", userID), slog.String("credential", string(kind)))
				if credID != "" && kind != "session" {
					attrs = append(attrs, slog.String("credential_id", credID))
				}
			}
			if tool != "" {
				attrs = append(attrs, slog.String("tool", tool))
			}
			log.LogAttrs(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter records the status code; Unwrap keeps Flush (SSE) and the
// other optional interfaces reachable through http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher for handlers that test for it directly.
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
