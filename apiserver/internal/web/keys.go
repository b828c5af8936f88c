package web

import (
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"net/http"
	"slices"
	"time"

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

// defaultScopes are checked on a fresh form: reading and studying.
var defaultScopes = []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStatsRead, contracts.ScopeStudyWrite}

func (p *AccountPages) keys(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Flash = "API keys", "settings", flash(r)
	kp, err := p.keysData(r, "", defaultScopes, "")
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
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
	status := http.StatusOK
	if err != nil {
		if !contracts.IsKind(err, contracts.KindInvalid) {
			p.site.Fail(w, r, v, err)
			return
		}
		v.Error, status = contracts.MessageOf(err), httperr.Status(contracts.KindInvalid)
	}
	if err == nil {
		name, scopes, expiry = "", defaultScopes, ""
	}
	kp, lerr := p.keysData(r, name, scopes, expiry)
	if lerr != nil {
		p.site.Fail(w, r, v, lerr)
		return
	}
	if err == nil {
		kp.NewKey = &key
	}
	v.Data = settings("keys", kp)
	p.site.R.Render(w, r, status, "settings", v)
}

func (p *AccountPages) revokeKey(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "API keys", "settings"
	if err := p.svc.Keys.RevokeKey(r.Context(), r.PathValue("id")); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/settings/keys?done=revoked")
}
