package web

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// scopeHelp says, for people, what each scope lets an agent do.
var scopeHelp = map[contracts.Scope]string{
	contracts.ScopeDecksRead:   "See your decks and cards, search them and see what is due.",
	contracts.ScopeStatsRead:   "Read your statistics and study plans.",
	contracts.ScopeDecksWrite:  "Create, change, import and delete decks and cards, and change your day settings.",
	contracts.ScopeStudyWrite:  "Start study sessions, record your answers, reschedule cards and optimise your scheduling weights.",
	contracts.ScopeMediaWrite:  "Upload images and sounds for cards.",
	contracts.ScopeStudyRender: "Show the study widget inside the agent's chat.",
}

// keyExpiries are the choices of the mint form.
var keyExpiries = []struct {
	Value, Label string
	In           time.Duration
}{
	{"30d", "30 days", 30 * 24 * time.Hour},
	{"90d", "90 days", 90 * 24 * time.Hour},
	{"365d", "1 year", 365 * 24 * time.Hour},
	{"7d", "7 days", 7 * 24 * time.Hour},
	{"never", "Never", 0},
}

// scopeChoice is one checkbox of the mint form.
type scopeChoice struct {
	Scope   string
	Help    string
	Tools   []string // the tools the scope opens
	Checked bool
}

// keyRow is one key of the list.
type keyRow struct {
	contracts.APIKeyView
	ScopeNames []string
	Expired    bool
}

// keysPage is the API keys section.
type keysPage struct {
	Keys     []keyRow
	Scopes   []scopeChoice
	Expiries []struct {
		Value, Label string
		Selected     bool
	}
	Name   string
	NewKey *contracts.NewAPIKey // set once, right after minting
	MCPURL string
}

func (p *AccountPages) keysData(r *http.Request, name string, checked []contracts.Scope, expiry string) (keysPage, error) {
	keys, err := p.svc.Keys.ListKeys(r.Context())
	if err != nil {
		return keysPage{}, err
	}
	now := time.Now()
	kp := keysPage{Name: name, MCPURL: p.mcpURL}
	for _, k := range keys {
		kp.Keys = append(kp.Keys, keyRow{APIKeyView: k, ScopeNames: contracts.ScopeStrings(k.Scopes),
			Expired: k.ExpiresAt != nil && !k.ExpiresAt.After(now)})
	}
	byScope := map[contracts.Scope][]string{}
	for _, t := range contracts.Catalog() {
		for _, s := range slices.Concat(t.Scopes, t.AnyScopes) {
			byScope[s] = append(byScope[s], t.Name)
		}
	}
	for _, s := range contracts.AllScopes {
		kp.Scopes = append(kp.Scopes, scopeChoice{Scope: string(s), Help: scopeHelp[s], Tools: byScope[s], Checked: slices.Contains(checked, s)})
	}
	if expiry == "" {
		expiry = keyExpiries[0].Value
	}
	for _, e := range keyExpiries {
		kp.Expiries = append(kp.Expiries, struct {
			Value, Label string
			Selected     bool
		}{e.Value, e.Label, e.Value == expiry})
	}
	return kp, nil
}

// defaultScopes are checked on a fresh form: what an agent needs to run
// a person's study (read, add and change cards, study, statistics).
var defaultScopes = []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeStatsRead, contracts.ScopeStudyWrite}

// newKeyCookie carries a new key's secret, sealed to the web session and
// the key, from the form's POST to the page it redirects to, which shows
// it once and clears it (post/redirect/get: reloading mints nothing).
const newKeyCookie = "tb_new_key"

// newKeyAAD binds a sealed secret to the web session and the key's id.
func (p *AccountPages) newKeyAAD(r *http.Request, keyID string) []byte {
	session := ""
	if c, err := r.Cookie(p.auth.SessionCookieName()); err == nil {
		session = c.Value
	}
	return []byte(session + "\x00" + keyID)
}

// setNewKeyCookie sets (maxAge > 0) or clears (maxAge < 0) the cookie.
func (p *AccountPages) setNewKeyCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: newKeyCookie, Value: value, Path: "/settings/keys", MaxAge: maxAge,
		HttpOnly: true, Secure: p.auth.SecureCookies(), SameSite: http.SameSiteStrictMode})
}

func (p *AccountPages) keys(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Flash = "API keys", "settings", flash(r)
	kp, err := p.keysData(r, "", defaultScopes, "")
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if id := r.URL.Query().Get("new"); id != "" {
		for _, k := range kp.Keys {
			if k.ID != id {
				continue
			}
			c, err := r.Cookie(newKeyCookie)
			if err != nil {
				v.Flash = "The key “" + k.Name + "” was created. Its secret was shown once; if you did not copy it, revoke the key and create another."
				break
			}
			p.setNewKeyCookie(w, "", -1)
			if secret, ok := p.auth.Open(newKeyCookie, c.Value, p.newKeyAAD(r, id)); ok {
				kp.NewKey = &contracts.NewAPIKey{Key: k.APIKeyView, Secret: string(secret)}
			}
		}
	}
	v.Data = settings("keys", kp)
	p.site.Render(w, r, "settings", v)
}

func (p *AccountPages) mintKey(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "API keys", "settings"
	name := r.PostFormValue("name")
	expiry := r.PostFormValue("expires")
	var scopes []contracts.Scope
	for _, s := range r.PostForm["scope"] {
		scopes = append(scopes, contracts.Scope(s))
	}
	var in time.Duration
	known := false
	for _, e := range keyExpiries {
		if e.Value == expiry {
			in, known = e.In, true
		}
	}
	var key contracts.NewAPIKey
	err := contracts.Errorf(contracts.KindInvalid, "choose when the key expires")
	if known {
		key, err = p.svc.Keys.CreateKey(r.Context(), name, scopes, in)
	}
	if err == nil {
		p.setNewKeyCookie(w, p.auth.Seal(newKeyCookie, []byte(key.Secret), p.newKeyAAD(r, key.Key.ID)), 300)
		SeeOther(w, r, "/settings/keys?new="+url.QueryEscape(key.Key.ID))
		return
	}
	if !contracts.IsKind(err, contracts.KindInvalid) {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Error = contracts.MessageOf(err)
	kp, lerr := p.keysData(r, name, scopes, expiry)
	if lerr != nil {
		p.site.Fail(w, r, v, lerr)
		return
	}
	v.Data = settings("keys", kp)
	p.site.R.Render(w, r, httperr.Status(contracts.KindInvalid), "settings", v)
}

// confirmRevoke asks before revoking a key: agents using it stop working.
func (p *AccountPages) confirmRevoke(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Narrow = "Revoke a key", "settings", true
	keys, err := p.svc.Keys.ListKeys(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	for _, k := range keys {
		if k.ID == r.PathValue("id") && k.RevokedAt == nil {
			v.Title, v.Data = "Revoke the key “"+k.Name+"”?", k
			p.site.Render(w, r, "key-revoke", v)
			return
		}
	}
	p.site.NotFound(w, r, v)
}

func (p *AccountPages) revokeKey(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "API keys", "settings"
	if err := p.svc.Keys.RevokeKey(r.Context(), r.PathValue("id")); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/settings/keys?done=revoked")
}
