package web

import (
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// SessionCookieMaxAge is how long the browser keeps the session cookie; the
// server-side session row decides whether it is still valid.
const SessionCookieMaxAge = 30 * 24 * time.Hour

// SignIn serves GET /login?token=… and POST /logout.
type SignIn struct {
	sessions ports.WebSessionService
	auth     *auth.Authenticator
	log      *slog.Logger
}

// NewSignIn returns the sign-in handlers.
func NewSignIn(sessions ports.WebSessionService, a *auth.Authenticator, log *slog.Logger) *SignIn {
	return &SignIn{sessions: sessions, auth: a, log: log}
}

var loginFailed = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Sign-in link not valid</title>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto">
<h1>This sign-in link cannot be used</h1><p>{{.}}</p>
<p>Sign-in links work once and expire after a few minutes. Ask for a new one.</p></body></html>`))

// Login consumes a one-time sign-in token, opens a web session (the
// HttpOnly session cookie and the readable CSRF cookie) and redirects to
// the web app. Only a sign-in link opens a session: no API key can.
func (s *SignIn) Login(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	token := r.URL.Query().Get("token")
	if token == "" {
		s.fail(w, contracts.KindInvalid, "The link has no sign-in token.")
		return
	}
	sessionToken, user, err := s.sessions.ConsumeLoginLink(r.Context(), token)
	if err != nil {
		if contracts.IsKind(err, contracts.KindUnauthenticated) || contracts.IsKind(err, contracts.KindNotFound) {
			s.fail(w, contracts.KindUnauthenticated, "The link is unknown, already used or expired.")
			return
		}
		s.log.LogAttrs(r.Context(), slog.LevelError, "sign-in failed", slog.Any("err", err))
		s.fail(w, contracts.KindUnavailable, "Sign-in is temporarily unavailable; try again shortly.")
		return
	}
	obs.RequestFrom(r.Context()).SetPrincipal(contracts.Principal{UserID: user.ID, CredentialKind: contracts.CredentialSession})
	secure := s.auth.SecureCookies()
	http.SetCookie(w, &http.Cookie{
		Name: s.auth.SessionCookieName(), Value: sessionToken, Path: "/",
		MaxAge: int(SessionCookieMaxAge.Seconds()), HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	http.SetCookie(w, &http.Cookie{
		Name: auth.CSRFCookie, Value: s.auth.CSRFToken(sessionToken), Path: "/",
		MaxAge: int(SessionCookieMaxAge.Seconds()), Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// fail answers out of the page door: the kind's status, and a page.
func (s *SignIn) fail(w http.ResponseWriter, kind contracts.ErrorKind, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(httperr.Status(kind))
	_ = loginFailed.Execute(w, msg)
}

// Logout ends the web session of the cookie and clears both cookies; a
// form post (the layout's sign-out button) is then sent to the start page. It
// sits behind the auth middleware, which has checked the session and its
// CSRF token; any other credential is refused.
func (s *SignIn) Logout(w http.ResponseWriter, r *http.Request) {
	p, _ := contracts.PrincipalFrom(r.Context())
	c, err := r.Cookie(s.auth.SessionCookieName())
	if p.CredentialKind != contracts.CredentialSession || err != nil {
		httperr.Write(r.Context(), s.log, w, httperr.JSON, contracts.Errorf(contracts.KindInvalid, "sign-out needs the web session cookie"))
		return
	}
	if err := s.sessions.SignOut(r.Context(), c.Value); err != nil {
		httperr.Write(r.Context(), s.log, w, httperr.JSON, err)
		return
	}
	secure := s.auth.SecureCookies()
	for _, name := range []string{s.auth.SessionCookieName(), auth.CSRFCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: name != auth.CSRFCookie, Secure: secure, SameSite: http.SameSiteLaxMode})
	}
	w.Header().Set("Cache-Control", "no-store")
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		// The layout's sign-out button: back to the start page.
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
