package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	kithttp "github.com/go-kit/kit/transport/http"
	"github.com/takhtabush/takhtabush/contracts"
)

// statusOf maps every error kind to its HTTP status. It is the one place
// where kinds become statuses.
var statusOf = map[contracts.ErrorKind]int{
	contracts.KindInvalid:         http.StatusBadRequest,
	contracts.KindUnauthenticated: http.StatusUnauthorized,
	contracts.KindForbidden:       http.StatusForbidden,
	contracts.KindNotFound:        http.StatusNotFound,
	contracts.KindConflict:        http.StatusConflict,
	contracts.KindRateLimited:     http.StatusTooManyRequests,
	contracts.KindUnavailable:     http.StatusServiceUnavailable,
	contracts.KindInternal:        http.StatusInternalServerError,
}

// created is the response of an endpoint that made a resource: 201 with
// the body.
type created struct{ body any }

// noContent is the response of an endpoint with nothing to return: 204.
type noContent struct{}

// encodeResponse is the one response encoder: the response as JSON with
// 200, or 201 for created, or an empty 204 for noContent.
func encodeResponse(_ context.Context, w http.ResponseWriter, response any) error {
	status := http.StatusOK
	switch r := response.(type) {
	case noContent:
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return nil
	case created:
		status, response = http.StatusCreated, r.body
	}
	body, err := json.Marshal(response)
	if err != nil {
		return contracts.Internal(err) // nothing written yet: the error encoder answers
	}
	writeJSON(w, status, body)
	return nil
}

// errorBody is the JSON shape of every failure.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Kind    contracts.ErrorKind `json:"kind"`
	Message string              `json:"message"`
}

// encodeError returns the one error encoder. It answers with the status of
// the error's kind and its safe message. An internal error, or one of an
// unknown kind, shows only "internal error" with a reference id; its cause
// is logged under that id.
func encodeError(logger *slog.Logger) kithttp.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		kind := contracts.KindOf(err)
		status, known := statusOf[kind]
		var message string
		var e *contracts.Error
		if errors.As(err, &e) {
			message = e.Message
		}
		if !known || kind == contracts.KindInternal {
			ref := newRef()
			attrs := []any{"ref", ref, "kind", string(kind), "err", err.Error()}
			if e != nil && e.Err != nil {
				attrs = append(attrs, "cause", e.Err.Error()) // Error() shows only the safe message
			}
			logger.ErrorContext(ctx, "rest: internal error", attrs...)
			kind, status = contracts.KindInternal, http.StatusInternalServerError
			message = "internal error (ref " + ref + ")"
		} else if message == "" {
			message = strings.ToLower(http.StatusText(status))
		}
		writeError(w, status, kind, message)
	}
}

// writeError writes the error body with status.
func writeError(w http.ResponseWriter, status int, kind contracts.ErrorKind, message string) {
	body, _ := json.Marshal(errorBody{errorDetail{Kind: kind, Message: message}}) // cannot fail: two strings
	writeJSON(w, status, body)
}

// writeJSON writes an encoded JSON body. A failed write means the client
// has gone; there is no one left to tell.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// newRef returns a short random reference id that ties an internal error
// shown to a user to its log line.
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
