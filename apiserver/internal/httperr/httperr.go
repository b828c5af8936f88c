// Package httperr is where error kinds become HTTP responses, once for
// every door of the service: one table maps each kind to its HTTP status
// and JSON-RPC code, a few named exceptions say more than their kind does
// (413, 421, 405), and each kind of door has one error body: a JSON-RPC
// error on /mcp, {"error":{"kind","message"}} on the other API doors, and
// a page for pages (the page door takes only the status from here). The
// OAuth endpoints' RFC 6749 and RFC 7591 bodies are the one exception
// among the JSON doors.
package httperr

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// Door is the kind of door a response goes out of; each has one error body.
type Door int

// The doors.
const (
	// JSON is every API door but /mcp: {"error":{"kind":…,"message":…}}.
	JSON Door = iota
	// JSONRPC is /mcp: a JSON-RPC error with id null and data {"kind":…}.
	JSONRPC
)

// CodeUnauthenticated is the JSON-RPC error code of a 401 on /mcp.
const CodeUnauthenticated = -32001

// codes is what one kind becomes on the wire.
type codes struct {
	status int // the HTTP status
	rpc    int // the JSON-RPC error code on /mcp
}

// byKind is the one table from error kinds to HTTP statuses and JSON-RPC
// codes. A kind missing here is answered as internal.
var byKind = map[contracts.ErrorKind]codes{
	contracts.KindInvalid:         {http.StatusBadRequest, mcpcore.CodeInvalidRequest},
	contracts.KindUnauthenticated: {http.StatusUnauthorized, CodeUnauthenticated},
	contracts.KindForbidden:       {http.StatusForbidden, mcpcore.CodeInvalidRequest},
	contracts.KindNotFound:        {http.StatusNotFound, mcpcore.CodeInvalidRequest},
	contracts.KindConflict:        {http.StatusConflict, mcpcore.CodeInvalidRequest},
	contracts.KindRateLimited:     {http.StatusTooManyRequests, mcpcore.CodeInvalidRequest},
	contracts.KindUnavailable:     {http.StatusServiceUnavailable, mcpcore.CodeInternalError},
	contracts.KindInternal:        {http.StatusInternalServerError, mcpcore.CodeInternalError},
}

// retryAfter is the Retry-After header (seconds) of the kinds a client
// should retry: the database away or busy, the caller over its rate.
var retryAfter = map[contracts.ErrorKind]string{
	contracts.KindUnavailable: "5",
	contracts.KindRateLimited: "60",
}

// Exception names a refusal whose HTTP status says more than its kind's.
type Exception int

// The named exceptions.
const (
	// TooLarge is a body over the door's bound: invalid, 413.
	TooLarge Exception = iota + 1
	// MisdirectedHost is a Host this service does not answer (DNS
	// rebinding): forbidden, 421.
	MisdirectedHost
	// MethodNotAllowed is a path that exists under other methods (the
	// caller sets Allow): invalid, 405.
	MethodNotAllowed
)

var exceptions = map[Exception]struct {
	kind   contracts.ErrorKind
	status int
}{
	TooLarge:         {contracts.KindInvalid, http.StatusRequestEntityTooLarge},
	MisdirectedHost:  {contracts.KindForbidden, http.StatusMisdirectedRequest},
	MethodNotAllowed: {contracts.KindInvalid, http.StatusMethodNotAllowed},
}

// Status returns the HTTP status of an error kind (500 for an unknown one).
// Pages, which write their own body, take their status from here.
func Status(kind contracts.ErrorKind) int {
	if c, ok := byKind[kind]; ok {
		return c.status
	}
	return http.StatusInternalServerError
}

// Write answers err out of door with its kind's status and its safe
// message. An internal error, or one of an unknown kind or type, shows only
// "internal error (ref …)"; its cause is logged under that reference.
func Write(ctx context.Context, log *slog.Logger, w http.ResponseWriter, door Door, err error) {
	kind, message := public(ctx, log, err)
	data := map[string]any{"kind": string(kind)}
	if r, ok := contracts.RefusalOf(err); ok && kind == contracts.KindRateLimited {
		data["limit"] = r.Limit
		if r.RetryAfter > 0 {
			data["retryAfterSeconds"] = retrySeconds(r.RetryAfter)
		}
	}
	setRetryAfter(w, kind, err)
	write(w, door, byKind[kind], data, message)
}

// setRetryAfter sets the Retry-After header of err: the wait a refusal
// names (none for a cap, where waiting does not help), else its kind's.
func setRetryAfter(w http.ResponseWriter, kind contracts.ErrorKind, err error) {
	if r, ok := contracts.RefusalOf(err); ok && kind == contracts.KindRateLimited {
		if r.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(r.RetryAfter)))
		}
		return
	}
	if after, ok := retryAfter[kind]; ok {
		w.Header().Set("Retry-After", after)
	}
}

// retrySeconds is a wait in whole seconds, rounded up, at least one.
func retrySeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// Page is the page door: it sets what every door sets for err (Retry-After)
// and returns the status, the kind and the safe message a page shows; the
// page writes its own body. Internal errors are logged and shown as Write
// shows them.
func Page(ctx context.Context, log *slog.Logger, w http.ResponseWriter, err error) (status int, kind contracts.ErrorKind, message string) {
	kind, message = public(ctx, log, err)
	setRetryAfter(w, kind, err)
	return byKind[kind].status, kind, message
}

// public returns the kind and the message a client may see of err: its own
// for a known kind (the status text when it has none), and internal with a
// reference, logged beside the cause, for anything else.
func public(ctx context.Context, log *slog.Logger, err error) (contracts.ErrorKind, string) {
	kind := contracts.KindOf(err)
	c, known := byKind[kind]
	if !known || kind == contracts.KindInternal {
		ref := mcpcore.NewRef()
		log.LogAttrs(ctx, slog.LevelError, "internal error", slog.String("ref", ref),
			slog.String("kind", string(kind)), slog.Any("err", err))
		return contracts.KindInternal, "internal error (ref " + ref + ")"
	}
	var e *contracts.Error
	if errors.As(err, &e) && e.Message != "" {
		return kind, e.Message
	}
	return kind, strings.ToLower(http.StatusText(c.status))
}

// Refuse answers a named exception out of door with message.
func Refuse(w http.ResponseWriter, door Door, x Exception, message string) {
	ex := exceptions[x]
	c := byKind[ex.kind]
	c.status = ex.status
	setRetryAfter(w, ex.kind, nil)
	write(w, door, c, map[string]any{"kind": string(ex.kind)}, message)
}

// write writes the error body of door: a JSON-RPC error whose data is data
// on /mcp, {"error":{"kind","message"}} elsewhere.
func write(w http.ResponseWriter, door Door, c codes, data map[string]any, message string) {
	if door == JSONRPC {
		mcpcore.WriteHTTPError(w, c.status, mcpcore.NewError(c.rpc, message, data))
		return
	}
	kind, _ := data["kind"].(string)
	body, _ := json.Marshal(Body{Error: Detail{Kind: contracts.ErrorKind(kind), Message: message}}) // cannot fail: two strings
	WriteJSON(w, c.status, body)
}

// WriteJSON writes an encoded JSON body with status, uncached: the one
// writer of the JSON doors, for answers and errors alike. A failed write
// means the client has gone; there is no one left to tell.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// Body is the error body of the JSON doors.
type Body struct {
	Error Detail `json:"error"`
}

// Detail is what a JSON door says about a failure.
type Detail struct {
	Kind    contracts.ErrorKind `json:"kind"`
	Message string              `json:"message"`
}
