package apiserver

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/limits"
	"github.com/takhtabush/takhtabush/apiserver/internal/listing"
	"github.com/takhtabush/takhtabush/apiserver/internal/oauthhttp"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// publicHandler is the main listener's handler.
type publicHandler http.Handler

// adminHandler is the admin listener's handler (metrics and probes).
type adminHandler http.Handler

// pinger checks the database.
type pinger func(ctx context.Context) error

// apiHandler serves /api/: the REST API for the web app, mounted behind
// the auth, CSRF and body-limit middleware of newPublicHandler.
type apiHandler http.Handler

// uploadHandler serves PUT /media/{id}, authenticated by the upload
// intent's token.
type uploadHandler http.Handler

// exportHandler serves GET /export/{token}, an export download authorized
// by its signed token.
type exportHandler http.Handler

// mediaHandler serves GET /media/{id} to the web session and signed URLs.
type mediaHandler http.Handler

// routeDeps are what the routes are built from.
type routeDeps struct {
	cfg     Config
	log     *slog.Logger
	metrics *obs.Metrics
	auth    *auth.Authenticator
	mcp     *mcpcore.Server
	signIn  *web.SignIn
	api     apiHandler
	ping    pinger
	upload  uploadHandler
	export  exportHandler
	media   mediaHandler
	site    *web.Site
	account *web.AccountPages
	decks   *web.DeckPages
	oauth   *oauthhttp.Handler
	limiter *limits.Limiter
	ids     ports.IDSource
}

// newPublicHandler builds the main routes:
//
//	POST /mcp, /mcp/, /mcp/oauth  MCP (the bare origin too on --mcp-host), each its own OAuth resource
//	/oauth/authorize, /oauth/token, /oauth/register, /oauth/revoke  the OAuth authorization server
//	GET  /.well-known/oauth-authorization-server  RFC 8414 metadata
//	GET, POST /settings/connected-apps  the grants a person gave, to disconnect
//	GET  /connect                 the public setup page (also a browser GET of the MCP URLs)
//	GET  /mcp/server-card, /.well-known/mcp/server-card  the SEP-2127 Server Card; /icon.svg
//	GET  /privacy, /terms         the privacy notice and terms (--privacy-file, --terms-file replace them)
//	POST /mcp/x/{sets}[/readonly], /mcp/readonly  MCP with a choice of toolsets: aliases of /mcp
//	GET  /static/                 the pages' embedded stylesheet and script
//	/api/                         the REST API for the web app
//	GET, POST /signin             the sign-in form; it mails a one-time link
//	GET  /login?token=…           "Sign in as …?"; its button POSTs /login, which spends the link
//	POST /logout                  sign-out
//	PUT  /media/{id}              a media upload, authenticated by its intent's token
//	GET  /export/{token}          an export_deck download, authorized by its signed token
//	GET  /media/{id}              a media file, to its owner's web session or a signed URL
//	GET  /healthz, /readyz, /.well-known/oauth-protected-resource[/mcp]
//	GET  /metrics                 loopback clients only, unless an admin address is set
func newPublicHandler(d routeDeps) (publicHandler, error) {
	connect := web.NewConnectPage(d.site, d.cfg.MCPURL(), bareOrigin(d.cfg.MCPHost), d.cfg.devUser())
	hosts := func(next http.Handler) http.Handler {
		return guard(d.log, httperr.JSON, d.cfg.allowedHosts(), nil, next)
	}
	mux := http.NewServeMux()
	// Each MCP path is an OAuth resource: a token works where it was
	// issued for, and a refusal names that resource's metadata.
	for _, res := range d.cfg.resources() {
		mcpHTTP := mcpcore.NewHTTPHandler(d.mcp, mcpcore.HTTPOptions{
			MaxBodyBytes:        d.cfg.MaxBodyBytes,
			AllowedHosts:        d.cfg.allowedHosts(),
			AllowedOrigins:      d.cfg.allowedOrigins(),
			ResourceMetadataURL: res.MetadataURL,
			BrowserHandler:      connect,
		})
		mcp := browserOr(hosts(connect), guard(d.log, httperr.JSONRPC, d.cfg.allowedHosts(), d.cfg.allowedOrigins(),
			auth.ForResource(res.Resource, d.auth.Middleware(d.log, httperr.JSONRPC, d.limiter.Middleware(d.log, httperr.JSONRPC, mcpHTTP)))))
		pattern := res.Host + res.Path
		if res.Path == "/" || res.Path == "/mcp/" {
			pattern += "{$}"
		}
		mux.Handle(pattern, mcp)
		if res.Path == "/mcp" {
			// The toolset paths are aliases of /mcp: its resource, tokens,
			// metadata and challenge; the path only chooses the tools.
			for _, alias := range []string{"/mcp/readonly", "/mcp/x/{sets}", "/mcp/x/{sets}/readonly"} {
				mux.Handle(alias, browserOr(hosts(connect), guard(d.log, httperr.JSONRPC, d.cfg.allowedHosts(), d.cfg.allowedOrigins(),
					chooseToolsets(d.mcp, auth.ForResource(res.Resource, d.auth.Middleware(d.log, httperr.JSONRPC, d.limiter.Middleware(d.log, httperr.JSONRPC, mcpHTTP)))))))
			}
		}
		meta := oauthhttp.JSONDocument(oauthhttp.ResourceMetadata(res.ID, d.cfg.BaseURL))
		metaPath, _ := strings.CutPrefix(res.MetadataURL, originOf(res.MetadataURL))
		if strings.HasSuffix(metaPath, "/") {
			metaPath += "{$}"
		}
		mux.Handle(res.Host+metaPath, hosts(meta))
		if res.Path == "/mcp" {
			// The root form names the main resource (RFC 9728 §3.1).
			mux.Handle("/.well-known/oauth-protected-resource", hosts(meta))
		}
	}
	mux.Handle(oauthhttp.ASMetadataPath, hosts(oauthhttp.JSONDocument(oauthhttp.ASMetadata(d.cfg.BaseURL))))
	mux.Handle(oauthhttp.AuthorizePath, hosts(d.oauth.Authorize()))
	mux.Handle(oauthhttp.TokenPath, hosts(oauthhttp.CORS(http.HandlerFunc(d.oauth.Token))))
	mux.Handle(oauthhttp.RegisterPath, hosts(oauthhttp.CORS(http.HandlerFunc(d.oauth.Register))))
	mux.Handle(oauthhttp.RevokePath, hosts(oauthhttp.CORS(http.HandlerFunc(d.oauth.Revoke))))
	mux.Handle(oauthhttp.ConnectedAppsPath, hosts(d.oauth.ConnectedApps(d.cfg.MCPURL())))
	mux.Handle("GET /connect", hosts(connect))
	mux.Handle("GET "+web.StaticPrefix, hosts(web.Static()))
	mux.Handle("GET /sw.js", hosts(web.ServiceWorker()))
	mux.Handle("/api/", hosts(bounded(d.cfg.MaxBodyBytes, deadline(d.cfg.RequestTimeout,
		d.auth.Middleware(d.log, httperr.JSON, d.limiter.Middleware(d.log, httperr.JSON, d.api))))))
	page := func(h http.Handler) http.Handler { return hosts(deadline(d.cfg.RequestTimeout, h)) }
	mux.Handle("GET /signin", page(d.site.Public(d.signIn.Form)))
	mux.Handle("POST /signin", page(d.site.Public(d.signIn.Send)))
	mux.Handle("GET /login", page(d.site.Public(d.signIn.Confirm)))
	if err := listingRoutes(mux, d, hosts, page); err != nil {
		return nil, err
	}
	mux.Handle("POST /login", page(d.site.Public(d.signIn.Login)))
	mux.Handle(rest.ExportPath, hosts(d.export))
	mux.Handle(rest.UploadPath, hosts(bounded(contracts.MaxAttachmentBytes+1, d.upload)))
	mux.Handle(rest.ServePath, hosts(deadline(d.cfg.RequestTimeout, d.media)))
	mux.Handle("POST /logout", hosts(bounded(1<<10, d.auth.Middleware(d.log, httperr.JSON, http.HandlerFunc(d.signIn.Logout)))))
	mux.HandleFunc("GET /healthz", web.Healthz)
	mux.Handle("GET /readyz", web.Readyz(d.ping))
	if d.cfg.AdminAddr == "" {
		mux.Handle("GET /metrics", loopbackOnly(d.log, d.metrics.Handler()))
	}
	pages := guarded{mux: mux, wrap: hosts} // every page checks Host, as /mcp and /api do
	d.account.Register(pages)               // /, /stats, /audit, /settings/…
	d.decks.Register(pages)                 // /decks…, /cards/…, /study/{id}
	// obs sits right above the mux: the mux names the route on the request
	// it is handed, and a middleware between them that copies the request
	// (WithContext) would hide that name from the metrics and the log.
	return clientip.Middleware(clientip.Trusted(d.cfg.TrustedProxies), operations(d.ids, obs.Middleware(d.log, d.metrics, mux))), nil
}

// newAdminHandler builds the admin listener's routes: metrics and probes.
func newAdminHandler(d routeDeps) adminHandler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", d.metrics.Handler())
	mux.HandleFunc("GET /healthz", web.Healthz)
	mux.Handle("GET /readyz", web.Readyz(d.ping))
	return mux
}

// listingRoutes serves what directories and clients read before they
// connect, all without a credential: the Server Card (under the MCP URL
// and at the SEP-2127 well-known path), the icon, and the privacy notice
// and terms (an operator's own files replace their text).
func listingRoutes(mux *http.ServeMux, d routeDeps, hosts, page func(http.Handler) http.Handler) error {
	svc := listing.Service{BaseURL: d.cfg.BaseURL, Version: d.cfg.Version}
	card, err := svc.CardHandler()
	if err != nil {
		return err
	}
	for _, p := range []string{listing.CardPath, listing.WellKnownCardPath} {
		mux.Handle("GET "+p, hosts(card))
		mux.Handle("OPTIONS "+p, hosts(card))
	}
	mux.Handle("GET "+listing.IconPath, hosts(listing.IconHandler()))
	for _, l := range []struct{ path, page, title, file string }{
		{web.PrivacyPath, "privacy", "Privacy", d.cfg.PrivacyFile},
		{web.TermsPath, "terms", "Terms of use", d.cfg.TermsFile},
	} {
		h, err := web.NewLegalPage(d.site, l.page, l.title, l.file)
		if err != nil {
			return err
		}
		mux.Handle("GET "+l.path, page(h))
	}
	return nil
}

// chooseToolsets serves an MCP toolset path (/mcp/readonly,
// /mcp/x/{sets}, /mcp/x/{sets}/readonly): the sets named and read-only
// ride in the request's context to the engine. A set name the server
// does not know is refused with 404 and the known names, before
// authentication.
func chooseToolsets(srv *mcpcore.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sel := mcpcore.ToolSelection{ReadOnly: strings.HasSuffix(r.URL.Path, "/readonly")}
		if raw := r.PathValue("sets"); raw != "" {
			sel.Sets = mcpcore.ParseToolsets(raw)
			if len(sel.Sets) == 0 {
				mcpcore.WriteHTTPError(w, http.StatusNotFound, &mcpcore.Error{Code: mcpcore.CodeInvalidParams, Message: "the path names no toolset"})
				return
			}
			if err := srv.CheckToolsets(sel.Sets); err != nil {
				mcpcore.WriteHTTPError(w, http.StatusNotFound, err)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(mcpcore.WithToolSelection(r.Context(), sel)))
	})
}

// bareOrigin is the alternative MCP URL on a dedicated MCP host.
func bareOrigin(host string) string {
	if host == "" {
		return ""
	}
	return "https://" + host + "/"
}

// guarded registers every handler on mux behind wrap.
type guarded struct {
	mux  *http.ServeMux
	wrap func(http.Handler) http.Handler
}

// Handle registers wrap(h) for pattern.
func (g guarded) Handle(pattern string, h http.Handler) { g.mux.Handle(pattern, g.wrap(h)) }

// browserOr serves a browser's GET (Accept: text/html) with page, without
// authentication, and everything else with next.
func browserOr(page, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
			page.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// deadline bounds the work of one request: its context ends after d.
func deadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// bounded caps the request body at n bytes.
func bounded(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			httperr.Refuse(w, httperr.JSON, httperr.TooLarge, "request body too large")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}

// guard refuses a request before anything reads it, against DNS
// rebinding: a Host outside hosts (and loopback names) gets 421 and, when
// origins is given, a browser Origin outside it (and loopback origins)
// gets 403, both out of door. The refusal comes before authentication, so
// a refused request acts for no one and its log line names no user. The
// rules are mcpcore's, which its own HTTP handler applies too.
func guard(log *slog.Logger, door httperr.Door, hosts, origins []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !mcpcore.HostAllowed(r.Host, hosts) {
			httperr.Refuse(w, door, httperr.MisdirectedHost, "host not allowed")
			return
		}
		if o := r.Header.Get("Origin"); origins != nil && o != "" && !mcpcore.OriginAllowed(o, origins) {
			httperr.Write(r.Context(), log, w, door, contracts.Errorf(contracts.KindForbidden, "origin not allowed"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOnly serves only clients on the loopback interface that did not
// come through a proxy (which would make every client look local).
func loopbackOnly(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(host)
		proxied := r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" || r.Header.Get("X-Real-Ip") != ""
		if err != nil || ip == nil || !ip.IsLoopback() || proxied {
			httperr.Write(r.Context(), log, w, httperr.JSON, contracts.Errorf(contracts.KindNotFound, "not found"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originOf returns the scheme://host of a URL.
func originOf(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}
