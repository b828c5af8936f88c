package oauthhttp

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/identity"
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
func (h *Handler) Authorize() http.Handler {
	return h.site.Public(func(w http.ResponseWriter, r *http.Request, view web.View) {
		var v url.Values
		switch r.Method {
		case http.MethodGet:
			v = r.URL.Query()
		case http.MethodPost:
			if err := r.ParseForm(); err != nil {
				h.errorPage(w, r, view, contracts.Errorf(contracts.KindInvalid, "The form could not be read."))
				return
			}
			v = r.PostForm
		default:
			w.Header().Set("Allow", "GET, POST")
			h.errorPage(w, r, view, contracts.Errorf(contracts.KindInvalid, "Use GET."))
			return
		}
		if k := repeated(v); k != "" {
			h.errorPage(w, r, view, contracts.Errorf(contracts.KindInvalid, "The request repeats the parameter %s.", k))
			return
		}
		req := authorizeRequest(v)
		if strings.HasPrefix(req.ClientID, "https:") && !h.docs.allow(clientip.Network(clientip.From(r)), time.Now()) {
			// Naming a client by its metadata document's URL makes us fetch
			// it: no one may use that to probe hosts at our expense.
			w.Header().Set("Retry-After", "60")
			h.errorPage(w, r, view, contracts.Errorf(contracts.KindRateLimited,
				"Too many connection requests from your network name an application by its address. Try again in a minute."))
			return
		}
		consent, err := h.svc.CheckAuthorize(r.Context(), req)
		if err != nil {
			// A POST comes from the consent page with the session's CSRF
			// token: the person has seen this client's consent page.
			h.refuse(w, r, view, consent, err, view.User != nil && (r.Method == http.MethodPost || h.granted(r, consent.Client.ID)))
			return
		}
		if view.User == nil {
			if r.Method == http.MethodPost {
				h.errorPage(w, r, view, contracts.Errorf(contracts.KindForbidden, "Your session has ended. Go back to the application and connect again."))
				return
			}
			// Sign in, then come back to this very request.
			http.Redirect(w, r, web.SignInURL(AuthorizePath+"?"+r.URL.RawQuery), http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodGet {
			h.consentPage(w, r, view, consent, v, "")
			return
		}
		approve := r.PostFormValue("decision") == "allow"
		var granted []contracts.Scope
		for _, s := range r.PostForm["grant"] {
			if sc := contracts.Scope(s); sc.Valid() && !slices.Contains(granted, sc) {
				granted = append(granted, sc)
			}
		}
		target, err := h.svc.Decide(r.Context(), req, approve, granted)
		if err != nil {
			if contracts.KindOf(err) == contracts.KindInvalid && contracts.OAuthCodeOf(err) == contracts.OAuthInvalidRequest {
				h.consentPage(w, r, view, consent, v, contracts.MessageOf(err))
				return
			}
			h.refuse(w, r, view, consent, err, true) // answering the consent page
			return
		}
		noStore(w)
		http.Redirect(w, r, target, http.StatusSeeOther)
	})
}

// refuse answers a refused authorization request. It goes back to the
// client's redirect URI (RFC 6749 §4.1.2.1) only when that URI is known
// to be the client's and trusted is set: the signed-in person has already
// granted this client, or has seen its consent page in this flow. Anyone
// may register a client with any redirect URI, so otherwise the redirect
// would make us an open redirector (RFC 9700 §4.11.2): our own error page
// says what is wrong instead.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, view web.View, consent contracts.OAuthConsent, err error, trusted bool) {
	status, code := statusOf(err)
	if consent.RedirectURI == "" || !trusted || status >= 500 {
		if status < 500 {
			err = contracts.Errorf(contracts.KindInvalid, "This connection request cannot be used: %s", contracts.MessageOf(err))
		}
		view.Title = "Connection not possible"
		h.errorPage(w, r, view, err)
		return
	}
	target := identity.RedirectWith(consent.RedirectURI, consent.State, h.cfg.Issuer,
		url.Values{"error": {string(code)}, "error_description": {contracts.MessageOf(err)}})
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// granted reports whether the signed-in person of r has a live grant for
// the client clientID (a failure to tell counts as no).
func (h *Handler) granted(r *http.Request, clientID string) bool {
	if clientID == "" {
		return false
	}
	grants, err := h.svc.ListGrants(r.Context())
	if err != nil {
		return false
	}
	return slices.ContainsFunc(grants, func(g contracts.OAuthGrant) bool { return g.ClientID == clientID })
}

// noStore keeps pages and redirects with one-time data out of caches.
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
}
