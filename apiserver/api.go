package apiserver

import (
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// apiHandler serves /api/.
type apiHandler http.Handler

// TODO(rest): mount rest.NewHandler once apiserver/internal/rest builds;
// until then /api/ answers 501 behind the real auth and CSRF middleware.
func newAPIHandler() apiHandler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		auth.WriteError(w, auth.StyleREST, http.StatusNotImplemented, contracts.KindUnavailable, "the REST API is not mounted yet")
	})
}
