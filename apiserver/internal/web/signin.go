package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// SessionCookieMaxAge is how long the browser keeps the session cookie; the
// server-side session row decides whether it is still valid.
const SessionCookieMaxAge = 30 * 24 * time.Hour

// Sign-in request limits, in a 15-minute window. Requests for one address
// are counted per client network (clientip.Network), so that others asking
// for someone's address never lock its owner out; the mail to one address
// is capped on its own: beyond SignInMailsPerEmail a window, at most one
// mail per SignInSlowMail goes out, and the form answers as if it had
// sent one (the links already sent keep working).
const (
	SignInPerEmail      = 5  // requests per address from one client network: 429 beyond
	SignInPerClient     = 20 // requests per client address: 429 beyond
	SignInMailsPerEmail = 10 // mails per address sent at once; then slowed
	SignInSlowMail      = time.Minute
	SignUpsPerNetwork   = 5 // open sign-up links per client network an hour; beyond, the same answer and no link
	SignUpWindow        = time.Hour
	SignInWindow        = 15 * time.Minute
	maxLimiterKeys      = 100_000
	mailTimeout         = 30 * time.Second
)

// SignInConfig configures sign-in by one-time link.
type SignInConfig struct {
	// BaseURL is the public origin the links point to.
	BaseURL string
	// Mailer sends the links; nil means email sign-in is not set up (the
	// form says so; operators still print links with users login-link).
	Mailer ports.Mailer
	// ShowLinks shows the link on the page after the form is sent: only for
	// development on one's own machine (the log mailer).
	ShowLinks bool
	// OpenSignup lets an unknown email get a sign-up link, which creates
	// the account when it is used (SignUpsPerNetwork an hour per network).
	OpenSignup bool
	// Now is the clock of the rate limits (time.Now when nil).
	Now func() time.Time
	// Settings, when set, lets a sign-in adopt the browser's timezone for
	// an account that never chose one.
	Settings ports.SettingsService
}

// SignIn serves the sign-in form (/signin), the link's confirmation page
// and its button (/login), and sign-out (/logout).
type SignIn struct {
	sessions  ports.WebSessionService
	auth      *auth.Authenticator
	log       *slog.Logger
	site      *Site
	cfg       SignInConfig
	perEmail  *limiter // per address and client network
	perClient *limiter
	mails     *limiter // mails per address in a window
	slowMails *limiter // beyond those, one per address per SignInSlowMail
	signups   *limiter // open sign-up links per client network
}

// NewSignIn returns the sign-in handlers.
func NewSignIn(sessions ports.WebSessionService, a *auth.Authenticator, site *Site, cfg SignInConfig, log *slog.Logger) *SignIn {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &SignIn{sessions: sessions, auth: a, log: log, site: site, cfg: cfg,
		perEmail:  newLimiter(SignInPerEmail, SignInWindow, maxLimiterKeys, cfg.Now),
		perClient: newLimiter(SignInPerClient, SignInWindow, maxLimiterKeys, cfg.Now),
		mails:     newLimiter(SignInMailsPerEmail, SignInWindow, maxLimiterKeys, cfg.Now),
		slowMails: newLimiter(1, SignInSlowMail, maxLimiterKeys, cfg.Now),
		signups:   newLimiter(SignUpsPerNetwork, SignUpWindow, maxLimiterKeys, cfg.Now)}
}

// signInData is the sign-in page's data.
type signInData struct {
	Next       string
	Email      string
	Enabled    bool   // a mailer is configured
	Sent       bool   // the form was sent: "check your email"
	DevLink    string // development only: the link itself
	OpenSignup bool
}

// Form serves GET /signin: the email form, or where to go when already
// signed in.
func (s *SignIn) Form(w http.ResponseWriter, r *http.Request, v View) {
	next := SafeNext(r.URL.Query().Get("next"))
	if v.User != nil {
		SeeOther(w, r, next)
		return
	}
	s.render(w, r, http.StatusOK, v, signInData{Next: next})
}

func (s *SignIn) render(w http.ResponseWriter, r *http.Request, status int, v View, d signInData) {
	d.Enabled, d.OpenSignup = s.cfg.Mailer != nil, s.cfg.OpenSignup
	v.Title, v.Nav, v.Narrow, v.Data = "Sign in", "signin", true, d
	w.Header().Set("Cache-Control", "no-store")
	s.site.R.Render(w, r, status, "signin", v)
}

// Send serves POST /signin: it sends a one-time link to the address. The
// answer is the same whether or not an account has the address, and the
// mail goes out in the background so that the time taken says nothing
// either.
func (s *SignIn) Send(w http.ResponseWriter, r *http.Request, v View) {
	if msg := s.auth.CheckOrigin(r); msg != "" {
		s.site.Fail(w, r, v, contracts.Errorf(contracts.KindForbidden, "%s", msg))
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	d := signInData{Next: SafeNext(r.PostFormValue("next")), Email: email}
	if s.cfg.Mailer == nil {
		s.render(w, r, httperr.Status(contracts.KindUnavailable), v, d)
		return
	}
	if email == "" || len(email) > 254 || !strings.Contains(email, "@") {
		v.Error = "Enter your email address, like name@example.com."
		s.render(w, r, httperr.Status(contracts.KindInvalid), v, d)
		return
	}
	sum := sha256.Sum256([]byte(strings.ToLower(email)))
	emailKey, client := hex.EncodeToString(sum[:]), clientip.From(r)
	if !s.perClient.allow(client) || !s.perEmail.allow(emailKey+" "+clientip.Network(client)) {
		w.Header().Set("Retry-After", "900")
		v.Error = "Too many sign-in requests. Wait a few minutes, then ask for a new link."
		s.render(w, r, httperr.Status(contracts.KindRateLimited), v, d)
		return
	}
	if !s.mails.allow(emailKey) && !s.slowMails.allow(emailKey) {
		// Mail to this address is being slowed: the same answer, no new
		// link; the ones already sent still work.
		d.Sent = true
		s.render(w, r, http.StatusOK, v, d)
		return
	}
	var signup func() bool // asked only for an address without an account
	if s.cfg.OpenSignup {
		network := clientip.Network(client)
		signup = func() bool { return s.signups.allow(network) }
	}
	token, exp, err := s.sessions.SignInLink(r.Context(), email, signup)
	switch {
	case err == nil:
		link := s.LinkURL(token, d.Next)
		if s.cfg.ShowLinks {
			d.DevLink = link
		}
		go s.mail(context.WithoutCancel(r.Context()), email, link, exp)
	case contracts.IsKind(err, contracts.KindNotFound):
		// The same answer as for a known address.
	case contracts.IsKind(err, contracts.KindInvalid):
		v.Error = contracts.MessageOf(err)
		s.render(w, r, httperr.Status(contracts.KindInvalid), v, d)
		return
	default:
		s.site.Fail(w, r, v, err)
		return
	}
	d.Sent = true
	s.render(w, r, http.StatusOK, v, d)
}

// LinkURL is the absolute sign-in link of a token (the one the mail and
// users login-link carry), coming back to next after sign-in.
func (s *SignIn) LinkURL(token, next string) string {
	u := s.cfg.BaseURL + "/login?token=" + url.QueryEscape(token)
	if next = SafeNext(next); next != "/" {
		u += "&next=" + url.QueryEscape(next)
	}
	return u
}

// mail sends the link; failures are logged without the link.
func (s *SignIn) mail(ctx context.Context, to, link string, exp time.Time) {
	ctx, cancel := context.WithTimeout(ctx, mailTimeout)
	defer cancel()
	body := "Hello,\n\nopen this link to sign in to Takhtabush:\n\n" + link + "\n\n" +
		"It works once, until " + exp.UTC().Format("15:04 MST") + " (15 minutes). " +
		"If you did not ask for it, ignore this message: nobody can sign in without the link.\n"
	if err := s.cfg.Mailer.Send(ctx, to, "Your Takhtabush sign-in link", body); err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "sending a sign-in link failed", slog.String("kind", string(contracts.KindOf(err))), slog.Any("err", err))
	}
}

// confirmData is the confirmation page's data.
type confirmData struct {
	Email, Token, Next string
}

// Confirm serves GET and HEAD /login?token=…: "Sign in as …?" with a
// button that spends the link. Opening the link uses nothing up, so mail
// scanners and link previews that fetch it cannot.
func (s *SignIn) Confirm(w http.ResponseWriter, r *http.Request, v View) {
	w.Header().Set("Cache-Control", "no-store")
	token := r.URL.Query().Get("token")
	if token == "" {
		s.linkFailed(w, r, v, httperr.Status(contracts.KindInvalid), "The link has no sign-in token.")
		return
	}
	u, err := s.sessions.PeekLoginLink(r.Context(), token)
	if err != nil {
		s.linkError(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Narrow = "Sign in as "+u.Email, "signin", true
	v.Data = confirmData{Email: u.Email, Token: token, Next: SafeNext(r.URL.Query().Get("next"))}
	s.site.R.Render(w, r, http.StatusOK, "signin-confirm", v)
}

// Login serves POST /login (the confirmation button): it spends the
// one-time token, opens a web session (the HttpOnly session cookie and the
// readable CSRF cookie) and goes to next. Only a sign-in link opens a
// session: no API key can.
func (s *SignIn) Login(w http.ResponseWriter, r *http.Request, v View) {
	w.Header().Set("Cache-Control", "no-store")
	if msg := s.auth.CheckOrigin(r); msg != "" {
		s.site.Fail(w, r, v, contracts.Errorf(contracts.KindForbidden, "%s", msg))
		return
	}
	token := r.PostFormValue("token")
	if token == "" {
		s.linkFailed(w, r, v, httperr.Status(contracts.KindInvalid), "The form has no sign-in token.")
		return
	}
	sessionToken, user, err := s.sessions.ConsumeLoginLink(r.Context(), token)
	if err != nil {
		s.linkError(w, r, v, err)
		return
	}
	obs.RequestFrom(r.Context()).SetPrincipal(contracts.Principal{UserID: user.ID, CredentialKind: contracts.CredentialSession})
	s.adoptTimezone(r, user.ID, r.PostFormValue("timezone"))
	secure := s.auth.SecureCookies()
	http.SetCookie(w, &http.Cookie{
		Name: s.auth.SessionCookieName(), Value: sessionToken, Path: "/",
		MaxAge: int(SessionCookieMaxAge.Seconds()), HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	http.SetCookie(w, &http.Cookie{
		Name: auth.CSRFCookie, Value: s.auth.CSRFToken(sessionToken), Path: "/",
		MaxAge: int(SessionCookieMaxAge.Seconds()), Secure: secure, SameSite: http.SameSiteLaxMode,
	})
	SeeOther(w, r, SafeNext(r.PostFormValue("next")))
}

// adoptTimezone gives an account that never chose a timezone the one the
// browser reported at sign-in (an IANA name the confirmation page's script
// fills in; empty without JavaScript, when the account keeps UTC). A name
// the server does not know is ignored: signing in never fails over it.
func (s *SignIn) adoptTimezone(r *http.Request, userID, tz string) {
	if s.cfg.Settings == nil || tz == "" || len(tz) > 64 {
		return
	}
	ctx := contracts.WithPrincipal(r.Context(), contracts.Principal{UserID: userID, CredentialKind: contracts.CredentialSession})
	if _, err := s.cfg.Settings.AdoptTimezone(ctx, tz); err != nil && !contracts.IsKind(err, contracts.KindInvalid) {
		s.log.WarnContext(r.Context(), "sign-in: adopting the browser's timezone failed", "err", err)
	}
}

func (s *SignIn) linkError(w http.ResponseWriter, r *http.Request, v View, err error) {
	if contracts.IsKind(err, contracts.KindUnauthenticated) || contracts.IsKind(err, contracts.KindNotFound) {
		s.linkFailed(w, r, v, httperr.Status(contracts.KindUnauthenticated), "The link is unknown, already used or expired.")
		return
	}
	s.site.Fail(w, r, v, err)
}

func (s *SignIn) linkFailed(w http.ResponseWriter, r *http.Request, v View, status int, msg string) {
	v.Title, v.Nav, v.Narrow, v.Data = "This sign-in link cannot be used", "signin", true, msg
	s.site.R.Render(w, r, status, "signin-failed", v)
}

// Logout ends the web session of the cookie and clears both cookies; a
// form post (the layout's sign-out button) is then sent to the start page.
// It sits behind the auth middleware, which has checked the session and
// its CSRF token; any other credential is refused.
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
