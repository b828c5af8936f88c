package oauthhttp

import (
	"net/http"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/domain/textrule"
)

// grantView is one connected app on the page.
type grantView struct {
	ID         string
	Name       string
	Domain     string
	Scopes     []scopeView
	CreatedAt  time.Time
	LastUsedAt *time.Time
	Trusted    bool // its calls skip the person's confirmation of big calls
}

// ConnectedApps serves GET /settings/connected-apps (the list) and POST
// (disconnect one, or with trust=on|off mark it trusted or not: a trusted
// app's calls skip the person's confirmation of big calls) to the signed-in person (the Site checks the session,
// the origin and the CSRF token).
func (h *Handler) ConnectedApps(mcpURL string) http.Handler {
	return h.site.Page(func(w http.ResponseWriter, r *http.Request, v web.View) {
		v.Title, v.Nav = "Connected apps", "settings"
		if r.Method == http.MethodPost && r.PostFormValue("trust") != "" {
			if err := h.svc.SetGrantTrusted(r.Context(), r.PostFormValue("grant"), r.PostFormValue("trust") == "on"); err != nil {
				h.site.Fail(w, r, v, err)
				return
			}
			web.SeeOther(w, r, ConnectedAppsPath+"?trusted=1")
			return
		}
		if r.Method == http.MethodPost {
			if err := h.svc.RevokeGrant(r.Context(), r.PostFormValue("grant")); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
				h.site.Fail(w, r, v, err)
				return
			}
			// Post/redirect/get: a reload does not post again.
			web.SeeOther(w, r, ConnectedAppsPath+"?disconnected=1")
			return
		}
		if r.URL.Query().Get("disconnected") == "1" {
			v.Flash = "Disconnected. Its access stopped."
		}
		if r.URL.Query().Get("trusted") == "1" {
			v.Flash = "Saved. The app's next call follows it."
		}
		grants, err := h.svc.ListGrants(r.Context())
		if err != nil {
			h.site.Fail(w, r, v, err)
			return
		}
		views := make([]grantView, len(grants))
		for i, g := range grants {
			c := contracts.OAuthClient{ID: g.ClientID, Kind: g.ClientKind, Name: g.ClientName}
			views[i] = grantView{ID: g.ID, Name: displayName(c), Domain: textrule.Shown(identity.ClientDomain(c)), Scopes: scopeViews(g.Scopes),
				CreatedAt: g.CreatedAt, LastUsedAt: g.LastUsedAt, Trusted: g.Trusted}
		}
		v.Data = map[string]any{"Grants": views, "Action": ConnectedAppsPath, "MCPURL": mcpURL}
		h.site.Render(w, r, appsPage, v)
	})
}
