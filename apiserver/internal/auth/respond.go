package auth

import (
	"encoding/json"
	"net/http"

	"github.com/takhtabush/takhtabush/contracts"
)

// Style is how a refusal is written: as a JSON-RPC error on /mcp, or as the
// REST API's JSON error elsewhere. Neither is ever an HTML page.
type Style int

// The refusal styles.
const (
	StyleREST Style = iota
	StyleJSONRPC
)

// CodeUnauthenticated is the JSON-RPC error code of a 401 on /mcp.
const CodeUnauthenticated = -32001

// codeForbidden is the JSON-RPC error code of a 403 (origin or CSRF) on /mcp.
const codeForbidden = -32600

// Challenge returns the WWW-Authenticate value of a 401.
func Challenge(baseURL string) string {
	return `Bearer resource_metadata="` + ResourceMetadataURL(baseURL) + `"`
}

// Unauthorized writes a 401 with the Bearer challenge, naming the
// metadata of the resource the request went to.
func (a *Authenticator) Unauthorized(w http.ResponseWriter, r *http.Request, style Style, message string, presented bool) {
	c := Challenge(a.cfg.BaseURL)
	if res, ok := ResourceFrom(r.Context()); ok {
		c = `Bearer resource_metadata="` + res.MetadataURL + `"`
	}
	if presented {
		// RFC 6750 §3.1: a token was sent and refused.
		c += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", c)
	WriteError(w, style, http.StatusUnauthorized, contracts.KindUnauthenticated, message)
}

// WriteError writes a JSON error with the given status in the given style.
func WriteError(w http.ResponseWriter, style Style, status int, kind contracts.ErrorKind, message string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Length")
	w.WriteHeader(status)
	var body any
	if style == StyleJSONRPC {
		code := CodeUnauthenticated
		switch status {
		case http.StatusForbidden:
			code = codeForbidden
		case http.StatusServiceUnavailable, http.StatusInternalServerError:
			code = -32603
		}
		body = rpcError{JSONRPC: "2.0", Error: rpcErrorBody{Code: code, Message: message, Data: errorData{Kind: kind}}}
	} else {
		body = restError{Error: restErrorBody{Kind: kind, Message: message}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// refuse writes the response for a failed resolution: 401 for a missing or
// refused credential, 503 when the check could not be made.
func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, style Style, err error) {
	switch contracts.KindOf(err) {
	case contracts.KindUnauthenticated:
		a.Unauthorized(w, r, style, contracts.MessageOf(err), bearerSent(r))
	case contracts.KindUnavailable:
		WriteError(w, style, http.StatusServiceUnavailable, contracts.KindUnavailable, "temporarily unavailable; retry shortly")
	default:
		WriteError(w, style, http.StatusInternalServerError, contracts.KindInternal, "internal error")
	}
}

type rpcError struct {
	JSONRPC string       `json:"jsonrpc"`
	ID      *int         `json:"id"` // always null: the request was not read
	Error   rpcErrorBody `json:"error"`
}

type rpcErrorBody struct {
	Code    int       `json:"code"`
	Message string    `json:"message"`
	Data    errorData `json:"data"`
}

type errorData struct {
	Kind contracts.ErrorKind `json:"kind"`
}

type restError struct {
	Error restErrorBody `json:"error"`
}

type restErrorBody struct {
	Kind    contracts.ErrorKind `json:"kind"`
	Message string              `json:"message"`
}

// bearerSent reports whether the request carried a bearer credential (not
// a cookie).
func bearerSent(r *http.Request) bool {
	_, key := r.Header["X-Api-Key"]
	return r.Header.Get("Authorization") != "" || key
}
