package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"mime"
	"net/http"
	"strings"
)

// CSRFField is the hidden form field that carries the CSRF token of a
// page's form, so forms work without JavaScript.
const CSRFField = "csrf_token"

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
// or "". Either the X-CSRF-Token header equals the tb_csrf cookie, or a
// form body (urlencoded or multipart) carries it in the csrf_token field;
// in both cases the token must be the one derived from the session cookie.
func (a *Authenticator) checkCSRF(r *http.Request) string {
	session, err := r.Cookie(a.sessionCookie)
	if err != nil {
		return "missing session cookie"
	}
	want := []byte(a.CSRFToken(session.Value))
	if header := r.Header.Get(CSRFHeader); header != "" {
		cookie, err := r.Cookie(CSRFCookie)
		if err != nil {
			return "missing CSRF cookie: reload the page and try again"
		}
		if subtle.ConstantTimeCompare([]byte(header), []byte(cookie.Value)) != 1 ||
			subtle.ConstantTimeCompare([]byte(header), want) != 1 {
			return "CSRF token mismatch: reload the page and try again"
		}
		return ""
	}
	if isForm(r) {
		field := r.PostFormValue(CSRFField)
		if field == "" {
			return "missing CSRF token: reload the page and submit the form again"
		}
		if subtle.ConstantTimeCompare([]byte(field), want) != 1 {
			return "CSRF token mismatch: reload the page and try again"
		}
		return ""
	}
	return "missing CSRF token: send the tb_csrf cookie's value in the X-CSRF-Token header"
}

// isForm reports whether r's body is an HTML form.
func isForm(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return false
	}
	return mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data"
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

// CheckOrigin is checkOrigin for pages that take unsafe requests without a
// session (the sign-in form): "" when r may go on, else why not.
func (a *Authenticator) CheckOrigin(r *http.Request) string { return a.checkOrigin(r) }
