package surface

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// metaErrorKind names the _meta key that carries a failed call's error kind,
// for clients and the apiserver's metrics.
const metaErrorKind = contracts.MetaErrorKind

// errorResult maps a service error to a tool result, once for every tool:
// the kinds a model can act on carry their message; anything else carries
// only a reference id, and the cause goes to the log.
func (s *Tools) errorResult(ctx context.Context, tool string, err error) *mcpcore.CallToolResult {
	kind := contracts.KindOf(err)
	var text string
	switch kind {
	case contracts.KindInvalid:
		text = "Invalid input: " + contracts.MessageOf(err)
	case contracts.KindNotFound:
		text = "Not found: " + contracts.MessageOf(err)
	case contracts.KindConflict:
		text = "Conflict: " + contracts.MessageOf(err)
	case contracts.KindForbidden:
		text = "Forbidden: " + contracts.MessageOf(err)
	case contracts.KindUnauthenticated:
		text = "Not authenticated: " + contracts.MessageOf(err)
	case contracts.KindRateLimited:
		text = "Limit reached: " + contracts.MessageOf(err)
	default:
		ref := mcpcore.NewRef()
		s.log.LogAttrs(ctx, slog.LevelError, "tool call failed",
			slog.String("tool", tool), slog.String("kind", string(kind)), slog.String("ref", ref), slog.Any("err", err))
		if kind == contracts.KindUnavailable {
			text = "Temporarily unavailable: retry in " + strconv.Itoa(int(RetryAfter/time.Second)) + " seconds (ref " + ref + ")."
		} else {
			text = "Internal error (ref " + ref + "). This is not caused by your input."
		}
	}
	res := mcpcore.ErrorResult(text)
	res.Meta = map[string]any{metaErrorKind: string(kind)}
	return res
}

// RetryAfter is how long a client is asked to wait when the service is
// temporarily unavailable (the database is away or busy).
const RetryAfter = 5 * time.Second

// transient turns the result of a call that failed because the service is
// temporarily unavailable into a JSON-RPC error with Retry-After (HTTP
// 503), so clients retry instead of reporting a fault; nil for any other
// result.
func transient(err error, res *mcpcore.CallToolResult) error {
	if err == nil || contracts.KindOf(err) != contracts.KindUnavailable || res == nil || len(res.Content) == 0 {
		return nil
	}
	text := res.Content[0].Text
	data := map[string]any{"kind": string(contracts.KindUnavailable), "retryAfterSeconds": int(RetryAfter / time.Second)}
	if res.Meta[MetaAuditFailed] == true {
		data[MetaAuditFailed] = true
	}
	return mcpcore.RetryLater(http.StatusServiceUnavailable, text, RetryAfter, data)
}
