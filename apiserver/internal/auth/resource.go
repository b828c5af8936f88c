package auth

import (
	"context"
	"net/http"
	"strings"
)

// Resource is an OAuth protected resource this service serves: the
// identifier tokens are bound to and the URL of its RFC 9728 metadata.
type Resource struct {
	// ID is the resource identifier a client names (e.g. https://tb.example/mcp).
	ID string
	// MetadataURL is where its protected-resource metadata is served.
	MetadataURL string
}

type resourceKey struct{}

// ForResource marks every request to next as addressed to res: an OAuth
// access token is accepted only when it was issued for res, and a refusal
// names res's metadata. Without it (the REST API) OAuth tokens are refused.
func ForResource(res Resource, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), resourceKey{}, res)))
	})
}

// ResourceFrom returns the resource a request is addressed to, if any.
func ResourceFrom(ctx context.Context) (Resource, bool) {
	res, ok := ctx.Value(resourceKey{}).(Resource)
	return res, ok
}

// MetadataURLFor returns the RFC 9728 metadata URL of the resource at
// path on origin: /.well-known/oauth-protected-resource followed by the
// path ("" and "/" for the bare origin).
func MetadataURLFor(origin, path string) string {
	origin = strings.TrimRight(origin, "/")
	if path == "/" {
		path = ""
	}
	return origin + "/.well-known/oauth-protected-resource" + path
}
