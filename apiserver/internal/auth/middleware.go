package auth

import (
	"log/slog"
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// Middleware authenticates every request before next: it resolves the
// principal, refuses out of door when there is none, guards unsafe requests
// carried by an ambient credential (origin and CSRF), and puts the
// principal in the context twice: as contracts.Principal for the domain and
// as mcpcore.Principal for the MCP engine's scope gate.
func (a *Authenticator) Middleware(log *slog.Logger, door httperr.Door, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Resolve(r)
		if err != nil {
			if k := contracts.KindOf(err); k == contracts.KindUnavailable {
				log.LogAttrs(r.Context(), slog.LevelError, "authentication failed", slog.String("kind", string(k)), slog.Any("err", err))
			}
			a.refuse(r.Context(), log, w, door, err, bearerSent(r))
			return
		}
		if unsafeMethod(r.Method) && ambient(p.CredentialKind) {
			msg := a.checkOrigin(r)
			if msg == "" && p.CredentialKind == contracts.CredentialSession {
				msg = a.checkCSRF(r)
			}
			if msg != "" {
				httperr.Write(r.Context(), log, w, door, contracts.Errorf(contracts.KindForbidden, "%s", msg))
				return
			}
		}
		if p.Exposure != nil { // read with the key: this request needs no second read
			obs.RequestFrom(r.Context()).SeedExposure(*p.Exposure)
			p.Exposure = nil
		}
		obs.RequestFrom(r.Context()).SetPrincipal(p)
		ctx := contracts.WithPrincipal(r.Context(), p)
		ctx = mcpcore.WithPrincipal(ctx, MCPPrincipal(p))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// MCPPrincipal converts a principal for the MCP engine.
func MCPPrincipal(p contracts.Principal) mcpcore.Principal {
	return mcpcore.Principal{
		UserID:         p.UserID,
		Scopes:         contracts.ScopeStrings(p.Scopes),
		CredentialKind: string(p.CredentialKind),
		CredentialID:   p.CredentialID,
		OAuth:          p.CredentialKind == contracts.CredentialOAuth,
	}
}

// ambient reports whether a browser attaches the credential by itself, so a
// third-party page could make a request carry it.
func ambient(k contracts.CredentialKind) bool {
	return k == contracts.CredentialSession || k == contracts.CredentialDev
}

func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}
