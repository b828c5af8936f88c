package web

import (
	"net/http"
	"slices"
	"strings"

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

// toolsetChoice is one toolset's box among the account's default sets.
type toolsetChoice struct {
	Name, Title, Description string
	Tools                    int  // how many tools the set holds
	On                       bool // in the account's default
}

// agentsPage is the Agents (MCP) section.
type agentsPage struct {
	ReadOnly bool
	// AllSets is on when the account's default is every tool; Toolsets
	// are the boxes of the sets (on when chosen, or in the lean default
	// of an account that never chose: Chosen false).
	AllSets  bool
	Chosen   bool
	Toolsets []toolsetChoice
	Lean     string // the lean default's set titles, for an account that never chose
	// Groups are the tools by toolset (each tool under its first set), in
	// the toolsets' order.
	Groups []toolGroup
	// Confirm are the thresholds past which an agent's call waits for
	// the person's yes.
	Confirm     []confirmField
	MCPURL      string
	Placeholder string
	Clients     []ClientConfig
}

func (p *AccountPages) agentsData(e contracts.ExposureSettings) agentsPage {
	ap := agentsPage{ReadOnly: e.ReadOnly, Confirm: confirmInputs(e), MCPURL: p.mcpURL, Placeholder: KeyPlaceholder, Clients: ClientConfigs(p.mcpURL, KeyPlaceholder)}
	sets := e.ToolsetsOrDefault()
	ap.Chosen, ap.AllSets = e.Toolsets != nil, slices.Contains(sets, contracts.ToolsetsAll)
	group := map[string]int{}
	for _, ts := range contracts.Toolsets() {
		group[ts.Name] = len(ap.Groups)
		ap.Groups = append(ap.Groups, toolGroup{Name: ts.Name, Title: ts.Title, Description: ts.Description})
		ap.Toolsets = append(ap.Toolsets, toolsetChoice{Name: ts.Name, Title: ts.Title, Description: ts.Description,
			On: ap.AllSets || slices.Contains(sets, ts.Name)})
		if slices.Contains(contracts.LeanToolsets, ts.Name) {
			ap.Lean = strings.TrimPrefix(ap.Lean+" and “"+ts.Title+"”", " and ")
		}
	}
	for _, t := range contracts.Catalog() {
		for i := range ap.Toolsets {
			if slices.Contains(t.Sets, ap.Toolsets[i].Name) {
				ap.Toolsets[i].Tools++
			}
		}
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
// switched off; the ticked toolsets (or all) become the account's default
// sets.
func (p *AccountPages) saveAgents(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Agents (MCP)", "settings"
	on := r.PostForm["tool"]
	e := contracts.ExposureSettings{ReadOnly: r.PostFormValue("readOnly") == "on", DisabledTools: []string{},
		Toolsets: append([]string{}, r.PostForm["toolset"]...)}
	th, err := parseThresholds(r)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	e.Confirm = th
	if len(e.Toolsets) == 0 {
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "Tick at least one toolset, or every tool, for agents to get by default."))
		return
	}
	// The page shows an account that never chose the lean default's
	// boxes ticked: saving them unchanged is no choice, so the account
	// keeps following the lean default.
	if now, err := p.svc.Exposure.Exposure(r.Context()); err != nil {
		p.site.Fail(w, r, v, err)
		return
	} else if chosen, err := contracts.ChooseToolsets(e.Toolsets); now.Toolsets == nil && err == nil && slices.Equal(chosen, contracts.LeanToolsets) {
		e.Toolsets = nil
	}
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
