package mcpcore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// JSON-RPC and MCP error codes the engine emits.
const (
	CodeParseError     = -32700 // the body is not JSON
	CodeInvalidRequest = -32600 // not a valid JSON-RPC request
	CodeMethodNotFound = -32601 // unknown (or, in the modern era, removed) method
	CodeInvalidParams  = -32602 // bad params, unknown tool, invalid cursor, modern resource-not-found
	CodeInternalError  = -32603 // server fault

	// CodeInsufficientScope is the application code for a call outside the
	// caller's granted scopes; data carries {"requiredScopes":[...]}.
	CodeInsufficientScope = -32003
	// CodeResourceNotFound is the handshake-era code for an unknown resource URI.
	CodeResourceNotFound = -32002

	CodeHeaderMismatch              = -32020 // modern: HTTP headers disagree with the body
	CodeMissingRequiredCapability   = -32021 // modern: the request needs an undeclared client capability
	CodeUnsupportedProtocolVersion  = -32022 // modern: the requested version is not served
	codeRequestCancelled            = -32800 // internal marker; never sent for a cancelled request
	defaultInternalErrorMessageText = "internal error"
)

// Error is a JSON-RPC error. A handler that returns (possibly wrapped) an
// *Error makes the request fail with that code, message and data; any other
// handler error becomes an isError tool result carrying the message.
type Error struct {
	Code    int
	Message string
	Data    any

	// status overrides the HTTP status the transport uses (0 = default).
	status int
	// scopes lists required scopes for an insufficient-scope error.
	scopes []string
	// retryAfter, when positive, is sent over HTTP as Retry-After.
	retryAfter time.Duration
}

// RetryLater returns a -32603 error for a transient failure (the database
// is away, the caller is over its rate): over HTTP the reply has the given
// status (503 or 429) and a Retry-After header, so clients and proxies
// know to come back instead of treating it as a server fault.
func RetryLater(status int, message string, retryAfter time.Duration, data any) *Error {
	return &Error{Code: CodeInternalError, Message: message, Data: data, status: status, retryAfter: retryAfter}
}

// RetryAfter is how long the client should wait before retrying (0: no hint).
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message) }

// NewError returns an *Error with the given code, message and optional data.
func NewError(code int, message string, data any) *Error {
	return &Error{Code: code, Message: message, Data: data}
}

// InvalidParams returns a -32602 error with a formatted message.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func errWithStatus(code, status int, msg string, data any) *Error {
	return &Error{Code: code, Message: msg, Data: data, status: status}
}

// ScopeError returns the -32003 "insufficient scope" error for the given
// required scopes. Over HTTP, for an OAuth principal, it becomes a 403 with
// a Bearer insufficient_scope challenge.
func ScopeError(required []string) *Error {
	req := append([]string(nil), required...)
	return &Error{
		Code:    CodeInsufficientScope,
		Message: "insufficient scope",
		Data:    map[string]any{"requiredScopes": req},
		scopes:  req,
	}
}

// AnyScopeError returns the -32003 "insufficient scope" error of a tool
// that needs all of required and one of anyOf: data carries
// {"requiredScopes":[...],"anyOfScopes":[...]}. For an OAuth principal the
// HTTP challenge asks for required and the first of anyOf, the least grant
// that allows the call.
func AnyScopeError(required, anyOf []string) *Error {
	req := append([]string{}, required...)
	challenge := append([]string(nil), required...)
	if len(anyOf) > 0 {
		challenge = append(challenge, anyOf[0])
	}
	return &Error{
		Code:    CodeInsufficientScope,
		Message: "insufficient scope: needs one of " + strings.Join(anyOf, ", "),
		Data:    map[string]any{"requiredScopes": req, "anyOfScopes": append([]string(nil), anyOf...)},
		scopes:  challenge,
	}
}

// RequireScopes returns a -32003 error when the principal in ctx lacks any of
// scopes. Without a principal (stdio for one user, tests, the conformance
// fixture) it returns nil. Handlers call it for needs that depend on the
// arguments.
func RequireScopes(ctx context.Context, scopes ...string) error {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return nil
	}
	if !hasAll(p.Scopes, scopes) {
		return ScopeError(scopes)
	}
	return nil
}

// httpStatus is the status the HTTP transport uses for the error.
func (e *Error) httpStatus(modern bool) int {
	if e.status != 0 {
		return e.status
	}
	switch e.Code {
	case CodeParseError, CodeInvalidRequest:
		return http.StatusBadRequest
	case CodeMethodNotFound:
		if modern {
			return http.StatusNotFound
		}
	case CodeHeaderMismatch, CodeMissingRequiredCapability, CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// InputRequiredError is returned by a handler (tools/call, prompts/get or
// resources/read) that needs more input from the client. In the modern era
// the engine answers with resultType "input_required", the requests and a
// signed requestState; the client retries with inputResponses. The
// handshake era has no such result: use Request.Elicit and friends, which
// ask the client directly there.
type InputRequiredError struct {
	// Requests maps server-chosen keys to the requests the client must fulfil.
	Requests map[string]InputRequest
	// State is opaque handler state returned on the retry via Request.State.
	// The engine signs it (HMAC-SHA-256); the client cannot alter it.
	State []byte
}

// Error implements error.
func (e *InputRequiredError) Error() string { return "input required" }

// NewRef returns a short random reference (12 hex digits): shown to a
// client in place of an internal failure's cause, and logged beside the
// cause, it ties the two together. The engine also uses it for ids.
func NewRef() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
