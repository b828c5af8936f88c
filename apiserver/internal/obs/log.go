package obs

import (
	"context"
	"log/slog"
)

// ContextHandler adds the request id of the context (when there is one) to
// every record, so log lines written deep in a request can be joined with
// its access log line.
type ContextHandler struct {
	slog.Handler
}

// Handle implements slog.Handler.
func (h ContextHandler) Handle(ctx context.Context, rec slog.Record) error {
	if r := RequestFrom(ctx); r != nil {
		rec.AddAttrs(slog.String("request_id", r.ID))
	}
	return h.Handler.Handle(ctx, rec)
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}
