package auth

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// Challenge returns the WWW-Authenticate value of a 401.
func Challenge(baseURL string) string {
	return `Bearer resource_metadata="` + ResourceMetadataURL(baseURL) + `"`
}

// refuse answers a failed resolution out of door: 401 with the Bearer
// challenge for a missing or refused credential, the error's own status
// otherwise (503 when the check could not be made). Never an HTML page.
// The challenge names the metadata of the resource the request went to.
func (a *Authenticator) refuse(ctx context.Context, log *slog.Logger, w http.ResponseWriter, door httperr.Door, err error, sent bool) {
	if contracts.IsKind(err, contracts.KindUnauthenticated) {
		c := Challenge(a.cfg.BaseURL)
		if res, ok := ResourceFrom(ctx); ok {
			c = `Bearer resource_metadata="` + res.MetadataURL + `"`
		}
		if sent {
			// RFC 6750 §3.1: a token was sent and refused.
			c += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", c)
	}
	httperr.Write(ctx, log, w, door, err)
}

// bearerSent reports whether the request carried a bearer credential (not
// a cookie).
func bearerSent(r *http.Request) bool {
	_, key := r.Header["X-Api-Key"]
	return r.Header.Get("Authorization") != "" || key
}
