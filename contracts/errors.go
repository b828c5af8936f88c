package contracts

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
)

// ErrorKind classifies every failure that crosses a boundary. Each transport
// maps kinds once: HTTP status in the REST API, JSON-RPC code or tool error
// in MCP.
type ErrorKind string

// The error kinds.
const (
	KindInvalid         ErrorKind = "invalid"         // the input is wrong; the message says how to fix it
	KindNotFound        ErrorKind = "not_found"       // absent, or owned by someone else
	KindConflict        ErrorKind = "conflict"        // the state changed underneath, or a duplicate
	KindForbidden       ErrorKind = "forbidden"       // authenticated, but not allowed
	KindUnauthenticated ErrorKind = "unauthenticated" // no valid credential
	KindRateLimited     ErrorKind = "rate_limited"    // too many requests; retry later
	KindUnavailable     ErrorKind = "unavailable"     // a dependency is down; retry later
	KindInternal        ErrorKind = "internal"        // a bug or an unexpected failure; never shown in detail
)

// MetaErrorKind is the _meta key of a failed tool result (isError) that
// names the failure's error kind, for clients and models to branch on.
const MetaErrorKind = "takhtabush/errorKind"

// MetaAuditFailed is the _meta key set (true) on a mutation's result when
// its audit row could not be written; the mutation stays applied.
const MetaAuditFailed = "takhtabush/auditFailed"

// ErrorKinds lists every error kind, for the transports' tables and the
// tests that keep them complete.
var ErrorKinds = []ErrorKind{
	KindInvalid, KindNotFound, KindConflict, KindForbidden, KindUnauthenticated,
	KindRateLimited, KindUnavailable, KindInternal,
}

// Error is the one error type of Takhtabush. Message is safe to show to a
// user or a model; it never contains SQL, secrets or stack traces. Err is
// the optional cause, kept for logs only.
type Error struct {
	Kind    ErrorKind
	Message string
	Err     error
	// Scopes, on a KindForbidden error, are the scopes the credential
	// lacks for the operation (an insufficient scope rather than a
	// refusal no grant would lift), so a transport can answer with its
	// insufficient-scope error; empty otherwise.
	Scopes []Scope
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return string(e.Kind) + ": " + e.Err.Error()
	}
	return e.Message
}

// LogValue makes slog record the kind, the message and the cause: Error
// shows only the safe message, which is what users see, but an operator
// reading a reference id in the log needs the cause.
func (e *Error) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", string(e.Kind)), slog.String("message", e.Message)}
	if e.Err != nil {
		attrs = append(attrs, slog.String("cause", e.Err.Error()))
	}
	return slog.GroupValue(attrs...)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Kind: k}) match any *Error of kind k.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Message == "" && t.Err == nil && t.Kind == e.Kind
	}
	return false
}

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind ErrorKind, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// ScopeErrorf returns a KindForbidden *Error of a credential that lacks
// scopes, with a formatted message.
func ScopeErrorf(scopes []Scope, format string, args ...any) error {
	return &Error{Kind: KindForbidden, Message: fmt.Sprintf(format, args...), Scopes: slices.Clone(scopes)}
}

// ScopesOf returns the scopes a KindForbidden err says the credential
// lacks, and nil for any other error.
func ScopesOf(err error) []Scope {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindForbidden {
		return e.Scopes
	}
	return nil
}

// Internal wraps an unexpected cause as an internal error. The cause stays
// in logs; the message shown is generic.
func Internal(cause error) error {
	if cause == nil {
		return nil
	}
	var e *Error
	if errors.As(cause, &e) {
		return cause
	}
	return &Error{Kind: KindInternal, Message: "internal error", Err: cause}
}

// KindOf returns the kind of err, KindInternal for an error of another type,
// and "" for nil.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// IsKind reports whether err is an *Error of the given kind.
func IsKind(err error, kind ErrorKind) bool { return err != nil && KindOf(err) == kind }

// MessageOf returns the safe message of err: its own message for an *Error
// that is not internal, and "internal error" otherwise.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != KindInternal && e.Message != "" {
		return e.Message
	}
	return "internal error"
}
