package web

import (
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/ports"
)

// AccountServices are the driving ports the signed-in person's own pages
// use: the home page, stats, the audit trail and the settings.
type AccountServices struct {
	Decks    ports.DeckService
	Study    ports.StudyService
	Stats    ports.StatsService
	Keys     ports.KeyService
	Exposure ports.ExposureService
	Audit    ports.AuditService
	Data     ports.AccountDataService
	Settings ports.SettingsService
	Trash    ports.TrashService
	// Cards and Notes name the audit trail's links by what they are now.
	Cards ports.CardService
	Notes ports.NoteService
	Undo  ports.UndoService
	// Confirm answers agents' calls that wait for the person's yes.
	Confirm ports.ConfirmService
	// Filtered tells Today which decks are filtered (their sessions serve
	// every card they hold).
	Filtered ports.FilteredDeckService
}

// AccountPages serve `/`, /stats, /audit and /settings/…: every handler
// calls the domain services for the signed-in person (the principal Site
// puts in the request's context) and renders a template; no domain rule
// lives here.
type AccountPages struct {
	site    *Site
	auth    *auth.Authenticator
	svc     AccountServices
	mcpURL  string
	content *content.Renderer
}

// NewAccountPages returns the pages; mcpURL is the MCP endpoint the agent
// settings show.
func NewAccountPages(site *Site, a *auth.Authenticator, svc AccountServices, mcpURL string) *AccountPages {
	return &AccountPages{site: site, auth: a, svc: svc, mcpURL: mcpURL, content: content.New()}
}

// Register adds the pages' routes to mux.
//
//	GET  /                              home: your decks and what is due (visitors: what Takhtabush is)
//	GET  /offline                       the page the service worker shows when a page cannot load
//	GET  /stats                         reviews per day, due forecast, retention, streak, time spent
//	GET  /audit                         the audit trail, filtered and paged, with Undo on undoable rows
//	GET  /audit/undo?credential=&since=  preview undoing everything a key or app did since a day
//	POST /audit/undo                    undo one operation, or that (as undo_changes)
//	GET  /confirm/{id}, POST …           an agent's call waiting for the person's yes: preview, approve or decline
//	POST /settings/keys/{id}/trust      mark a key trusted (its calls skip confirmation) or not
//	GET  /settings                      → /settings/keys
//	GET  /settings/keys, POST …         API keys: list, mint (→ ?new=ID, the secret shown once)
//	GET  /settings/keys/{id}/revoke     revoke a key, after a confirmation
//	POST /settings/keys/{id}/revoke
//	GET  /settings/agents, POST …       the tools agents may use (exposure), MCP URL, client configurations
//	GET  /settings/day, POST …          your day: timezone and rollover hour
//	GET  /settings/data                 download everything, delete the account
//	POST /settings/data/export          the zip archive (GET only goes back to /settings/data)
//	POST /settings/data/delete          delete the account (typed confirmation)
//	GET  /settings/trash                deleted decks and cards, kept 30 days
//	POST /settings/trash/restore        bring one back (as restore_items)
func (p *AccountPages) Register(mux Router) {
	s := p.site
	mux.Handle("GET /{$}", s.Public(p.home))
	// The offline page is the same for everyone (the service worker keeps
	// a copy): rendered for nobody, whoever asks.
	mux.Handle("GET /offline", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Render(w, r, "offline", View{Title: "Offline"})
	}))
	mux.Handle("GET /stats", s.Page(p.stats))
	mux.Handle("GET /audit", s.Page(p.auditTrail))
	mux.Handle("GET /audit/undo", s.Page(p.previewUndo))
	mux.Handle("POST /audit/undo", s.Page(p.undoOperation))
	mux.Handle("GET /settings", s.Page(func(w http.ResponseWriter, r *http.Request, _ View) {
		http.Redirect(w, r, "/settings/keys", http.StatusSeeOther)
	}))
	mux.Handle("GET /settings/keys", s.Page(p.keys))
	mux.Handle("POST /settings/keys", s.Page(p.mintKey))
	mux.Handle("GET /settings/keys/{id}/revoke", s.Page(p.confirmRevoke))
	mux.Handle("POST /settings/keys/{id}/revoke", s.Page(p.revokeKey))
	mux.Handle("POST /settings/keys/{id}/trust", s.Page(p.trustKey))
	mux.Handle("GET /confirm/{id}", s.Page(p.confirmCall))
	mux.Handle("POST /confirm/{id}", s.Page(p.answerCall))
	mux.Handle("GET /settings/agents", s.Page(p.agents))
	mux.Handle("POST /settings/agents", s.Page(p.saveAgents))
	mux.Handle("GET /settings/day", s.Page(p.day))
	mux.Handle("POST /settings/day", s.Page(p.saveDay))
	mux.Handle("GET /settings/data", s.Page(p.data))
	mux.Handle("GET /settings/data/export", s.Page(func(w http.ResponseWriter, r *http.Request, _ View) {
		http.Redirect(w, r, "/settings/data", http.StatusSeeOther) // no side effect on a GET
	}))
	mux.Handle("POST /settings/data/export", s.Page(p.export))
	mux.Handle("POST /settings/data/delete", s.Page(p.deleteAccount))
	mux.Handle("GET /settings/trash", s.Page(p.trash))
	mux.Handle("POST /settings/trash/restore", s.Page(p.restoreTrashed))
}

// settingsTab is one entry of the settings navigation.
type settingsTab struct {
	Path, Label string
	Current     bool
}

// settingsData is what every settings section renders with.
type settingsData struct {
	Section string // keys, agents, data, day, trash
	Tabs    []settingsTab
	Page    any // the section's own data
}

// settings wraps a section's data with the settings navigation.
func settings(section string, page any) settingsData {
	tabs := []settingsTab{
		{Path: "/settings/keys", Label: "API keys"},
		{Path: "/settings/agents", Label: "Agents (MCP)"},
		{Path: "/settings/connected-apps", Label: "Connected apps"},
		{Path: "/settings/day", Label: "Your day"},
		{Path: "/settings/data", Label: "Your data"},
		{Path: "/settings/trash", Label: "Trash"},
	}
	for i := range tabs {
		tabs[i].Current = tabs[i].Path == "/settings/"+section
	}
	return settingsData{Section: section, Tabs: tabs, Page: page}
}

// flash turns a redirect's ?done= into the page's success line.
func flash(r *http.Request) string {
	switch r.URL.Query().Get("done") {
	case "revoked":
		return "The key is revoked: agents using it are refused from now on."
	case "trusted":
		return "Saved. The key's next call follows it."
	case "saved":
		return "Saved. Agents see the change on their next call."
	case "saved-day":
		return "Saved. Your day now starts at the new time."
	case "restored-deck":
		return "Restored: the deck is back with its cards and their review history."
	case "restored-card":
		return "Restored: the card is back in its deck with its review history."
	}
	return ""
}
