package oauthhttp

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// grantView is one connected app on the page.
type grantView struct {
	ID         string
	Name       string
	Domain     string
	Scopes     []scopeView
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// ConnectedApps serves GET /settings/connected-apps (the list) and POST
// (disconnect one): the web session only.
func (h *Handler) ConnectedApps(mcpURL string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		noStore(w)
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		p, session, err := h.auth.WebSession(r) // checks origin and CSRF on a POST
		if err != nil {
			if contracts.KindOf(err) == contracts.KindForbidden {
				h.errorPage(w, http.StatusForbidden, contracts.MessageOf(err))
				return
			}
			if contracts.KindOf(err) != contracts.KindUnauthenticated {
				h.log.LogAttrs(r.Context(), slog.LevelError, "connected apps: session check failed", slog.Any("err", err))
				h.errorPage(w, http.StatusServiceUnavailable, "Temporarily unavailable; try again shortly.")
				return
			}
			http.Redirect(w, r, h.cfg.SignInPath+"?next="+url.QueryEscape(ConnectedAppsPath), http.StatusSeeOther)
			return
		}
		ctx := contracts.WithPrincipal(r.Context(), p)
		notice := ""
		if r.Method == http.MethodPost {
			if err := h.svc.RevokeGrant(ctx, r.PostFormValue("grant")); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
				h.log.LogAttrs(r.Context(), slog.LevelError, "connected apps: revoke failed", slog.Any("err", err))
				h.errorPage(w, http.StatusServiceUnavailable, "The app could not be disconnected; try again.")
				return
			}
			// Post/redirect/get: a reload does not post again.
			http.Redirect(w, r, ConnectedAppsPath+"?disconnected=1", http.StatusSeeOther)
			return
		}
		if r.URL.Query().Get("disconnected") == "1" {
			notice = "Disconnected. Its access stopped."
		}
		grants, err := h.svc.ListGrants(ctx)
		if err != nil {
			h.log.LogAttrs(r.Context(), slog.LevelError, "connected apps: list failed", slog.Any("err", err))
			h.errorPage(w, http.StatusServiceUnavailable, "Temporarily unavailable; try again shortly.")
			return
		}
		views := make([]grantView, len(grants))
		for i, g := range grants {
			c := contracts.OAuthClient{ID: g.ClientID, Kind: g.ClientKind, Name: g.ClientName}
			views[i] = grantView{ID: g.ID, Name: clientName(c), Domain: clientDomain(c), Scopes: scopeViews(g.Scopes),
				CreatedAt: g.CreatedAt, LastUsedAt: g.LastUsedAt}
		}
		render(w, http.StatusOK, "apps", map[string]any{
			"CSS": StylesheetPath, "Grants": views, "CSRF": h.auth.CSRFToken(session), "Action": ConnectedAppsPath,
			"Notice": notice, "MCPURL": mcpURL,
		})
	}
}
