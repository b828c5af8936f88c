package web

import (
	"fmt"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"log/slog"
	"net/http"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
)

// dataPage is the Your data section.
type dataPage struct {
	Email string
}

func (p *AccountPages) data(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Your data", "settings"
	v.Data = settings("data", dataPage{Email: v.User.Email})
	p.site.Render(w, r, "settings", v)
}

// export streams the account's zip archive (POST /settings/data/export:
// it writes a security event and hands all data out, so it needs our
// origin and the CSRF token as every page form does). A failure before the first
// byte is an error page; after it the download breaks off (and is logged).
func (p *AccountPages) export(w http.ResponseWriter, r *http.Request, v View) {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="takhtabush-%s.zip"`, time.Now().UTC().Format("2006-01-02")))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	cw := &countingWriter{w: w}
	if err := p.svc.Data.Export(r.Context(), cw); err != nil {
		if cw.n == 0 {
			for _, k := range []string{"Content-Type", "Content-Disposition"} {
				h.Del(k)
			}
			p.site.Fail(w, r, v, err)
			return
		}
		p.site.log.LogAttrs(r.Context(), slog.LevelError, "export broke off", slog.Any("err", err))
	}
}

// countingWriter counts what reached the client.
type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// deleteAccount deletes the account when the email is typed out, ends the
// browser's session and shows a goodbye page.
func (p *AccountPages) deleteAccount(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Your data", "settings"
	err := p.svc.Data.DeleteAccount(r.Context(), r.PostFormValue("confirm"))
	if contracts.IsKind(err, contracts.KindInvalid) {
		v.Error = contracts.MessageOf(err)
		v.Data = settings("data", dataPage{Email: v.User.Email})
		p.site.R.Render(w, r, httperr.Status(contracts.KindInvalid), "settings", v)
		return
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	secure := p.auth.SecureCookies()
	for _, name := range []string{p.auth.SessionCookieName(), auth.CSRFCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: name != auth.CSRFCookie, Secure: secure, SameSite: http.SameSiteLaxMode})
	}
	p.site.R.Render(w, r, http.StatusOK, "goodbye", View{Title: "Your account is deleted"})
}
