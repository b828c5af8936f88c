package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
)

// CSRFToken returns the double-submit token of a web session: the
// HMAC-SHA-256, under the server key, of the SHA-256 of the session token.
// It is stable for the session's life, the same on every instance that
// shares the key, and useless without the session cookie.
func (a *Authenticator) CSRFToken(sessionToken string) string {
	sum := sha256.Sum256([]byte(sessionToken))
	m := hmac.New(sha256.New, a.cfg.CSRFKey)
	m.Write(sum[:])
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF returns why a cookie-authenticated unsafe request is refused,
// or "": the X-CSRF-Token header must equal the tb_csrf cookie, and both the
// token derived from the session cookie.
func (a *Authenticator) checkCSRF(r *http.Request) string {
	session, err := r.Cookie(a.sessionCookie)
	if err != nil {
		return "missing session cookie"
	}
	header := r.Header.Get(CSRFHeader)
	cookie, err := r.Cookie(CSRFCookie)
	if header == "" || err != nil {
		return "missing CSRF token: send the tb_csrf cookie's value in the X-CSRF-Token header"
	}
	want := []byte(a.CSRFToken(session.Value))
	if subtle.ConstantTimeCompare([]byte(header), []byte(cookie.Value)) != 1 ||
		subtle.ConstantTimeCompare([]byte(header), want) != 1 {
		return "CSRF token mismatch: reload the page and try again"
	}
	return ""
}

// checkOrigin returns why an unsafe request carried by an ambient
// credential is refused, or "": when the browser says where it comes from
// (Origin, Sec-Fetch-Site), that must be this service.
func (a *Authenticator) checkOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" && !a.origins[strings.ToLower(o)] {
		return "cross-origin request refused"
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "cross-site request refused"
	}
	return ""
}
