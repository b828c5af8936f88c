package web

import (
	"net/http"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
)

// toolRow is one tool of the agent settings.
type toolRow struct {
	Name, Title, Description string
	Scopes                   []string
	Mutates, Destructive     bool
	On                       bool // the account's switch
	Hidden                   bool // on, but hidden by read-only mode
}

// toolGroup is one toolset's tools on the agent settings page.
type toolGroup struct {
	Name, Title, Description string
	Tools                    []toolRow
}

// agentsPage is the Agents (MCP) section.
type agentsPage struct {
	ReadOnly bool
	// Groups are the tools by toolset (each tool under its first set), in
	// the toolsets' order.
	Groups      []toolGroup
	MCPURL      string
	Placeholder string
	Clients     []ClientConfig
}

func (p *AccountPages) agentsData(e contracts.ExposureSettings) agentsPage {
	ap := agentsPage{ReadOnly: e.ReadOnly, MCPURL: p.mcpURL, Placeholder: KeyPlaceholder, Clients: ClientConfigs(p.mcpURL, KeyPlaceholder)}
	group := map[string]int{}
	for _, ts := range contracts.Toolsets() {
		group[ts.Name] = len(ap.Groups)
		ap.Groups = append(ap.Groups, toolGroup{Name: ts.Name, Title: ts.Title, Description: ts.Description})
	}
	for _, t := range contracts.Catalog() {
		on := !slices.Contains(e.DisabledTools, t.Name)
		scopes := contracts.ScopeStrings(t.Scopes)
		if len(t.AnyScopes) > 0 { // one badge: any one of them will do
			scopes = append(scopes, contracts.JoinScopes(t.AnyScopes, " or "))
		}
		row := toolRow{Name: t.Name, Title: t.Title, Description: t.Description,
			Scopes: scopes, Mutates: t.Mutates, Destructive: t.Annotations.DestructiveHint,
			On: on, Hidden: on && e.ReadOnly && t.Mutates}
		i, ok := 0, false
		if len(t.Sets) > 0 {
			i, ok = group[t.Sets[0]]
		}
		if !ok { // a tool in no known set still gets its switch
			group[""] = len(ap.Groups)
			ap.Groups = append(ap.Groups, toolGroup{Title: "Other tools"})
			i = group[""]
		}
		ap.Groups[i].Tools = append(ap.Groups[i].Tools, row)
	}
	return ap
}

func (p *AccountPages) agents(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Flash = "Agents (MCP)", "settings", flash(r)
	e, err := p.svc.Exposure.Exposure(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Data = settings("agents", p.agentsData(e))
	p.site.Render(w, r, "settings", v)
}

// saveAgents stores the switches: every tool whose box is not ticked is
// switched off.
func (p *AccountPages) saveAgents(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Agents (MCP)", "settings"
	on := r.PostForm["tool"]
	e := contracts.ExposureSettings{ReadOnly: r.PostFormValue("readOnly") == "on", DisabledTools: []string{}}
	for _, t := range contracts.Catalog() {
		if !slices.Contains(on, t.Name) {
			e.DisabledTools = append(e.DisabledTools, t.Name)
		}
	}
	if _, err := p.svc.Exposure.SetExposure(r.Context(), e); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/settings/agents?done=saved")
}
