package apiserver

import (
	"net/http"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// operations mints an operation id for every request that may change data
// (any method but GET, HEAD and OPTIONS) before it reaches its handler: a
// REST or page mutation's change records and its audit row share it. An
// MCP tool call gets its own from the surface, one per mutating call.
func operations(ids ports.IDSource, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			r = r.WithContext(contracts.WithOperationID(r.Context(), ids.NewID()))
		}
		next.ServeHTTP(w, r)
	})
}
