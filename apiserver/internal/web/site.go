package web

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// MaxFormBytes bounds a page form's body (a pasted import is the largest).
const MaxFormBytes = 2 << 20

// Site is what every page handler shares: the renderer, the session
// check and the signed-in account.
type Site struct {
	// R renders pages into the layout.
	R        *Renderer
	auth     *auth.Authenticator
	accounts ports.AccountService
	settings ports.SettingsService
	log      *slog.Logger
}

// NewSite returns the shared page machinery; settings gives the
// signed-in account's timezone, in which every page shows times.
func NewSite(r *Renderer, a *auth.Authenticator, accounts ports.AccountService, settings ports.SettingsService, log *slog.Logger) *Site {
	return &Site{R: r, auth: a, accounts: accounts, settings: settings, log: log}
}

// Router is where pages register their routes: an *http.ServeMux, or one
// that wraps every handler (the server puts its Host check in front of
// each page).
type Router interface {
	Handle(pattern string, h http.Handler)
}

// PageFunc is a page handler. v comes filled with the signed-in account
// and the CSRF token; the handler sets Title, Nav and Data and renders it
// with Site.Render (or redirects). For a page behind Site.Page, r's
// context carries the principal the domain services act for.
type PageFunc func(w http.ResponseWriter, r *http.Request, v View)

// Page serves h to a signed-in person only. Without a valid web session, a
// GET or HEAD is redirected to /signin?next=<this page>, and an unsafe
// request gets a 403 page; an unsafe request must come from our origin
// with the CSRF token (X-CSRF-Token header or csrf_token form field). API
// keys never reach a page.
func (s *Site) Page(h PageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
		v, r, err := s.session(r)
		if err != nil {
			switch {
			case contracts.IsKind(err, contracts.KindUnauthenticated) && (r.Method == http.MethodGet || r.Method == http.MethodHead):
				http.Redirect(w, r, SignInURL(r.URL.RequestURI()), http.StatusSeeOther)
			case contracts.IsKind(err, contracts.KindUnauthenticated):
				s.Fail(w, r, View{}, contracts.Errorf(contracts.KindForbidden, "Your session has ended. Sign in again, then repeat what you did."))
			default:
				s.Fail(w, r, View{}, err)
			}
			return
		}
		h(w, r, v)
	})
}

// Public serves h to everyone; v.User is set when the visitor is signed in
// (an unsafe request carried by a session is checked as in Page).
func (s *Site) Public(h PageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
		v, r2, err := s.session(r)
		if err != nil {
			if contracts.IsKind(err, contracts.KindForbidden) {
				s.Fail(w, r, View{}, err)
				return
			}
			h(w, r, View{})
			return
		}
		h(w, r2, v)
	})
}

// session resolves r's web session into a View and a request whose
// context carries the principal.
func (s *Site) session(r *http.Request) (View, *http.Request, error) {
	p, token, err := s.auth.WebSession(r)
	if err != nil {
		return View{}, r, err
	}
	u, err := s.accounts.UserByID(r.Context(), p.UserID)
	if err != nil {
		if contracts.IsKind(err, contracts.KindNotFound) {
			return View{}, r, contracts.Errorf(contracts.KindUnauthenticated, "sign in to continue")
		}
		return View{}, r, err
	}
	obs.RequestFrom(r.Context()).SetPrincipal(p)
	ctx := contracts.WithPrincipal(r.Context(), p)
	ctx = mcpcore.WithPrincipal(ctx, auth.MCPPrincipal(p))
	return View{User: &u, CSRF: s.auth.CSRFToken(token), zone: newZone(ctx, s.settings)}, r.WithContext(ctx), nil
}

// Render renders page name with status 200.
func (s *Site) Render(w http.ResponseWriter, r *http.Request, name string, v View) {
	s.R.Render(w, r, http.StatusOK, name, v)
}

// Fail renders err as an error page: the status of its kind, its safe
// message, and for an internal failure only a generic line (the cause is
// logged, never shown).
func (s *Site) Fail(w http.ResponseWriter, r *http.Request, v View, err error) {
	status, kind, msg := httperr.Page(r.Context(), s.log, w, err)
	title := failTitles[kind]
	switch kind {
	case contracts.KindUnavailable:
		msg = "The service is busy or its database is away. Try again shortly."
	case contracts.KindInternal:
		msg = "The page could not be shown. Try again in a moment. (" + strings.TrimPrefix(msg, "internal error (") // keeps the ref
	}
	v.Title, v.Data = title, msg
	s.R.Render(w, r, status, "error", v)
}

// failTitles are the error page's titles; its status comes from httperr.
var failTitles = map[contracts.ErrorKind]string{
	contracts.KindNotFound:        "Not found",
	contracts.KindInvalid:         "That did not work",
	contracts.KindConflict:        "That did not work",
	contracts.KindForbidden:       "Not allowed",
	contracts.KindUnauthenticated: "Sign in needed",
	contracts.KindRateLimited:     "Slow down",
	contracts.KindUnavailable:     "Temporarily unavailable",
	contracts.KindInternal:        "Something went wrong",
}

// NotFound renders the 404 page.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request, v View) {
	s.Fail(w, r, v, contracts.Errorf(contracts.KindNotFound, "There is no page at this address."))
}

// SeeOther redirects a form's POST to a page (Post/Redirect/Get).
func SeeOther(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// SignInURL is the sign-in page that comes back to next afterwards.
func SignInURL(next string) string {
	next = SafeNext(next)
	if next == "/" {
		return "/signin"
	}
	return "/signin?next=" + url.QueryEscape(next)
}

// SafeNext returns next when it is a path on this origin, else "/": an
// open redirect through ?next= is refused (no scheme, no host, no "//" or
// "/\" that browsers read as another host, no control characters).
func SafeNext(next string) string {
	if next == "" || len(next) > 2048 || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	if strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	return next
}
