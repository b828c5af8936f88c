package rest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	kithttp "github.com/go-kit/kit/transport/http"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

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
	httperr.WriteJSON(w, status, body)
	return nil
}

// encodeError returns the one error encoder of the REST API: the JSON
// door of httperr (its kind's status and safe message; internal errors
// show a reference id and are logged under it).
func encodeError(logger *slog.Logger) kithttp.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		httperr.Write(ctx, logger, w, httperr.JSON, err)
	}
}
