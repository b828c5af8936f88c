package oauthhttp

import (
	"log/slog"
	"net/http"
	"net/url"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
)

// authorizeRequest reads the authorization request's parameters from v
// (the query of a GET, the hidden fields of the consent form).
func authorizeRequest(v url.Values) contracts.OAuthAuthorizeRequest {
	return contracts.OAuthAuthorizeRequest{
		ResponseType: v.Get("response_type"), ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		Scope: v.Get("scope"), State: v.Get("state"), CodeChallenge: v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"), Resource: v["resource"],
	}
}

// repeated reports a parameter RFC 6749 §3.1 forbids repeating.
func repeated(v url.Values) string {
	for k, vs := range v {
		if len(vs) > 1 && k != "resource" && k != "grant" {
			return k
		}
	}
	return ""
}

// Authorize serves GET /oauth/authorize (the consent page) and POST
// /oauth/authorize (the person's answer).
func (h *Handler) Authorize(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	var v url.Values
	switch r.Method {
	case http.MethodGet:
		v = r.URL.Query()
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			h.errorPage(w, http.StatusBadRequest, "The form could not be read.")
			return
		}
		v = r.PostForm
	default:
		w.Header().Set("Allow", "GET, POST")
		h.errorPage(w, http.StatusMethodNotAllowed, "Use GET.")
		return
	}
	if k := repeated(v); k != "" {
		h.errorPage(w, http.StatusBadRequest, "The request repeats the parameter "+k+".")
		return
	}
	req := authorizeRequest(v)
	consent, err := h.svc.CheckAuthorize(r.Context(), req)
	if err != nil {
		h.refuse(w, r, consent, err)
		return
	}
	p, session, err := h.auth.WebSession(r)
	if err != nil {
		switch contracts.KindOf(err) {
		case contracts.KindUnauthenticated:
		case contracts.KindForbidden: // a cross-site post or a stale form
			h.errorPage(w, http.StatusForbidden, contracts.MessageOf(err))
			return
		default:
			h.log.LogAttrs(r.Context(), slog.LevelError, "oauth consent: session check failed", slog.Any("err", err))
			h.errorPage(w, http.StatusServiceUnavailable, "Sign-in is temporarily unavailable; try again shortly.")
			return
		}
		if r.Method == http.MethodPost {
			h.errorPage(w, http.StatusUnauthorized, "Your session has ended. Go back to the application and connect again.")
			return
		}
		next := AuthorizePath + "?" + r.URL.RawQuery
		http.Redirect(w, r, h.cfg.SignInPath+"?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	if r.Method == http.MethodGet {
		h.consentPage(w, consent, v, h.auth.CSRFToken(session), "")
		return
	}
	approve := r.PostFormValue("decision") == "allow"
	var granted []contracts.Scope
	for _, s := range r.PostForm["grant"] {
		if sc := contracts.Scope(s); sc.Valid() && !slices.Contains(granted, sc) {
			granted = append(granted, sc)
		}
	}
	target, err := h.svc.Decide(contracts.WithPrincipal(r.Context(), p), req, approve, granted)
	if err != nil {
		if contracts.KindOf(err) == contracts.KindInvalid && contracts.OAuthCodeOf(err) == contracts.OAuthInvalidRequest {
			h.consentPage(w, consent, v, h.auth.CSRFToken(session), contracts.MessageOf(err))
			return
		}
		h.refuse(w, r, consent, err)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// refuse answers a refused authorization request: back to the client's
// redirect URI when it is trusted (RFC 6749 §4.1.2.1), on a page when not.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, consent contracts.OAuthConsent, err error) {
	status, code := statusOf(err)
	if status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "oauth authorize failed", slog.Any("err", err))
	}
	if consent.RedirectURI == "" {
		h.errorPage(w, http.StatusBadRequest, "This connection request cannot be used: "+contracts.MessageOf(err))
		return
	}
	target := redirectWith(consent.RedirectURI, consent.State, h.cfg.Issuer,
		url.Values{"error": {string(code)}, "error_description": {contracts.MessageOf(err)}})
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// noStore keeps pages with one-time data out of caches and frames.
func noStore(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
}

// redirectWith adds v, state (when set) and iss (RFC 9207) to a redirect
// URI's query.
func redirectWith(redirectURI, state, issuer string, v url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", issuer)
	u.RawQuery = q.Encode()
	return u.String()
}
