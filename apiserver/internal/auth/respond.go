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
func (a *Authenticator) refuse(ctx context.Context, log *slog.Logger, w http.ResponseWriter, door httperr.Door, err error) {
	if contracts.IsKind(err, contracts.KindUnauthenticated) {
		w.Header().Set("WWW-Authenticate", Challenge(a.cfg.BaseURL))
	}
	httperr.Write(ctx, log, w, door, err)
}
