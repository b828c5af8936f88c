package oauthhttp

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Bounds on request bodies.
const (
	maxFormBytes         = 16 << 10
	maxRegistrationBytes = 16 << 10
)

// Config configures the endpoints.
type Config struct {
	// Issuer is the authorization server's identifier, the public origin.
	Issuer string
	// RegistrationsPerMinute bounds registrations per client network, an
	// IPv4 address or an IPv6 /64 (default 10).
	RegistrationsPerMinute int
	// DocumentRequestsPerMinute bounds the authorization requests per
	// client network that name a client by its metadata document's URL,
	// which makes the server fetch it (default 30).
	DocumentRequestsPerMinute int
}

// Handler serves the OAuth endpoints and pages.
type Handler struct {
	svc      ports.OAuthService
	site     *web.Site
	log      *slog.Logger
	cfg      Config
	register *limiter
	docs     *limiter
}

// New returns the OAuth endpoints; their pages go into site's layout.
func New(svc ports.OAuthService, site *web.Site, log *slog.Logger, cfg Config) (*Handler, error) {
	if cfg.RegistrationsPerMinute <= 0 {
		cfg.RegistrationsPerMinute = 10
	}
	if cfg.DocumentRequestsPerMinute <= 0 {
		cfg.DocumentRequestsPerMinute = 30
	}
	if err := site.R.Add(consentPage, consentHTML); err != nil {
		return nil, err
	}
	if err := site.R.Add(appsPage, appsHTML); err != nil {
		return nil, err
	}
	return &Handler{svc: svc, site: site, log: log, cfg: cfg, register: newLimiter(cfg.RegistrationsPerMinute, time.Minute, 10000),
		docs: newLimiter(cfg.DocumentRequestsPerMinute, time.Minute, 10000)}, nil
}

// fail writes a service error as an OAuth error body, logging what is
// not the client's fault.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, code := statusOf(err)
	if status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "oauth endpoint failed", slog.String("path", obs.LoggedPath(r)), slog.Any("err", err))
	}
	if _, _, basic := r.BasicAuth(); basic && status == http.StatusUnauthorized {
		// RFC 6749 §5.2: a client that authenticated with the
		// Authorization header is told the scheme it used.
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	writeOAuthError(w, status, code, contracts.MessageOf(err))
}

// parseForm reads a bounded application/x-www-form-urlencoded POST body.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "use POST")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "the body must be an application/x-www-form-urlencoded form of at most 16 KiB")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 && k != "resource" {
			return contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "parameter "+strconv.Quote(k)+" is repeated")
		}
	}
	return nil
}

// clientID is the form's client_id, or the user name of HTTP Basic
// authentication with an empty secret (some public clients send that).
func clientID(r *http.Request) string {
	if id := r.PostFormValue("client_id"); id != "" {
		return id
	}
	if user, _, ok := r.BasicAuth(); ok {
		return user
	}
	return ""
}

// Token serves POST /oauth/token.
func (h *Handler) Token(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	f := r.PostForm
	tokens, err := h.svc.Token(r.Context(), contracts.OAuthTokenRequest{
		GrantType: f.Get("grant_type"), ClientID: clientID(r), Code: f.Get("code"), RedirectURI: f.Get("redirect_uri"),
		CodeVerifier: f.Get("code_verifier"), RefreshToken: f.Get("refresh_token"), Scope: f.Get("scope"), Resource: f["resource"],
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Pragma", "no-cache")
	_ = json.NewEncoder(w).Encode(tokens)
}

// Revoke serves POST /oauth/revoke (RFC 7009): 200 whether or not the
// token was known.
func (h *Handler) Revoke(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.fail(w, r, err)
		return
	}
	token := r.PostFormValue("token")
	if token == "" {
		h.fail(w, r, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "token is required"))
		return
	}
	if err := h.svc.Revoke(r.Context(), token, clientID(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// registrationResponse is the RFC 7591 §3.2.1 answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// Register serves POST /oauth/register (RFC 7591), rate limited per
// client network (an IPv6 host holds a whole /64: counting its addresses
// one by one would not limit it).
func (h *Handler) Register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.fail(w, r, contracts.OAuthErrorf(contracts.KindInvalid, contracts.OAuthInvalidRequest, "use POST"))
		return
	}
	if !h.register.allow(clientip.Network(clientip.From(r)), time.Now()) {
		w.Header().Set("Retry-After", "60")
		writeOAuthError(w, http.StatusTooManyRequests, contracts.OAuthInvalidRequest, "too many registrations from this address; retry in a minute")
		return
	}
	var reg contracts.OAuthRegistration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err := dec.Decode(&reg); err != nil {
		msg := "the body must be a JSON object of client metadata"
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			msg = "the registration is larger than 16 KiB"
		}
		writeOAuthError(w, http.StatusBadRequest, contracts.OAuthInvalidClientMetadata, msg)
		return
	}
	c, err := h.svc.Register(r.Context(), reg)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	resp := registrationResponse{
		ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), RedirectURIs: c.RedirectURIs, TokenEndpointAuthMethod: "none",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		ClientName: c.Name, ClientURI: c.URI, Scope: contracts.JoinScopes(c.Scopes, " "),
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(resp)
}
