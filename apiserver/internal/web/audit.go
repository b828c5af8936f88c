package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/study"
)

// auditPageSize is how many events one audit page shows.
const auditPageSize = 25

// auditLink is a link to something an event changed.
type auditLink struct {
	Label, Href string
}

// auditRow is one event of the audit page, or several in a row that
// repeat one action (Times > 1): the same tool, credential and outcome,
// in one operation or, for ratings, one study session.
type auditRow struct {
	contracts.AuditEvent
	ToolTitle  string
	Credential string // the key's name and hint, or what signed in
	Summary    string // the input summary, indented (the newest event's)
	Links      []auditLink
	Security   bool // an account-security event (sign-in, keys, apps, exposure, export)
	// Times is how many events the row stands for; First is the oldest's
	// time when more than one.
	Times int
	First time.Time
	// Undo is "undoable" when the operation has change records or reviews
	// not undone yet, "too old" when what is left are reviews older than
	// undo_changes takes back, "undone" when an undo applied them all, ""
	// otherwise.
	Undo string
}

// groupKey says which events in a row show as one: those of one
// operation, or ratings in one study session, by one credential with one
// outcome; "" for an event that shows alone.
func groupKey(e contracts.AuditEvent) string {
	base := e.Tool + "\x00" + e.CredentialID + "\x00" + string(e.Outcome) + "\x00"
	switch {
	case e.Tool == contracts.ToolSubmitReview && len(e.AffectedIDs) > 0:
		return base + "session:" + e.AffectedIDs[0]
	case e.OperationID != "":
		return base + "op:" + e.OperationID
	}
	return ""
}

// groupRows folds consecutive rows with one groupKey into the first
// (newest), which gathers their links.
func groupRows(rows []auditRow) []auditRow {
	var out []auditRow
	for _, r := range rows {
		if n := len(out); n > 0 && groupKey(r.AuditEvent) != "" && groupKey(r.AuditEvent) == groupKey(out[n-1].AuditEvent) {
			last := &out[n-1]
			last.Times++
			last.First = r.At
			for _, l := range r.Links {
				if !slices.Contains(last.Links, l) {
					last.Links = append(last.Links, l)
				}
			}
			continue
		}
		r.Times = 1
		out = append(out, r)
	}
	return out
}

// option is one choice of a select.
type option struct {
	Value, Label string
	Selected     bool
}

// auditPage is the audit page's data.
type auditPage struct {
	Rows        []auditRow
	Tools       []option
	Credentials []option
	From, To    string // YYYY-MM-DD, as typed
	Older       string // the next page's URL, "" on the last page
	Newest      string // the first page's URL when not on it
	Filtered    bool
	// UndoFrom previews undoing what the credential filtered on did since
	// the From day, when both are chosen.
	UndoFrom string
	// UndoDays is how many days back reviews and change records can be
	// undone (contracts.ChangeDays).
	UndoDays int
}

// deckTools are the tools whose affected ids are decks.
var deckTools = map[string]bool{contracts.ToolCreateDeck: true, contracts.ToolUpdateDeck: true, contracts.ToolDeleteDeck: true}

func (p *AccountPages) auditTrail(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Audit trail", "audit"
	q := r.URL.Query()
	f := contracts.AuditFilter{Tool: q.Get("tool"), CredentialID: q.Get("credential")}
	ap := auditPage{From: q.Get("from"), To: q.Get("to"), UndoDays: contracts.ChangeDays}
	if ap.From != "" {
		d, err := time.Parse(time.DateOnly, ap.From)
		if err != nil {
			p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "the start date must look like 2026-12-01"))
			return
		}
		f.Since = d
	}
	if ap.To != "" {
		d, err := time.Parse(time.DateOnly, ap.To)
		if err != nil {
			p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "the end date must look like 2026-12-01"))
			return
		}
		f.Until = d.AddDate(0, 0, 1) // through the end of that day
	}
	ap.Filtered = f.Tool != "" || f.CredentialID != "" || ap.From != "" || ap.To != ""
	if f.CredentialID != "" && ap.From != "" {
		ap.UndoFrom = "/audit/undo?" + url.Values{"credential": {f.CredentialID}, "since": {ap.From}}.Encode()
	}
	events, err := p.svc.Audit.List(r.Context(), f, q.Get("cursor"), auditPageSize)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	keys, err := p.svc.Keys.ListKeys(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	keyNames := map[string]string{}
	ap.Credentials = []option{{Value: "", Label: "Any credential"}}
	for _, k := range keys {
		keyNames[k.ID] = k.Name + " (…" + k.Hint + ")"
		ap.Credentials = append(ap.Credentials, option{Value: k.ID, Label: "Key " + keyNames[k.ID], Selected: k.ID == f.CredentialID})
	}
	ap.Tools = []option{{Value: "", Label: "Any tool"}}
	titles := map[string]string{}
	for _, t := range contracts.Catalog() {
		titles[t.Name] = t.Title
		if t.Mutates || t.MutatesWith != "" || t.AuditedRead {
			ap.Tools = append(ap.Tools, option{Value: t.Name, Label: t.Title, Selected: t.Name == f.Tool})
		}
	}
	// Security events and web actions that are no tool call.
	for _, ev := range contracts.AuditEvents() {
		titles[ev.Name] = ev.Title
		label := ev.Title
		if ev.Security {
			label += " (security)"
		}
		ap.Tools = append(ap.Tools, option{Value: ev.Name, Label: label, Selected: ev.Name == f.Tool})
	}
	states, err := p.undoStates(r, events.Items)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	var rows []auditRow
	for _, e := range events.Items {
		ev, _ := contracts.AuditEventByName(e.Tool)
		rows = append(rows, auditRow{AuditEvent: e, ToolTitle: titles[e.Tool], Credential: credentialLabel(e, keyNames),
			Summary: prettyJSON(e.InputSummary), Links: affectedLinks(e), Security: ev.Security, Undo: undoState(states[e.OperationID])})
	}
	ap.Rows = groupRows(rows)
	p.nameLinks(r.Context(), ap.Rows)
	v.Flash = undoFlash(q)
	if events.NextCursor != "" {
		next := url.Values{}
		for k, vs := range q {
			next[k] = vs
		}
		next.Set("cursor", events.NextCursor)
		ap.Older = "/audit?" + next.Encode()
	}
	if q.Get("cursor") != "" {
		first := url.Values{}
		for k, vs := range q {
			first[k] = vs
		}
		first.Del("cursor")
		ap.Newest = "/audit?" + first.Encode()
	}
	v.Data = ap
	p.site.Render(w, r, "audit", v)
}

// credentialLabel names what made a change.
func credentialLabel(e contracts.AuditEvent, keyNames map[string]string) string {
	switch e.CredentialKind {
	case contracts.CredentialAPIKey:
		if n, ok := keyNames[e.CredentialID]; ok {
			return "Key " + n
		}
		return "Key " + e.CredentialID
	case contracts.CredentialSession:
		return "You, in the web app"
	case contracts.CredentialOAuth:
		return "Connected app " + e.CredentialID
	}
	return string(e.CredentialKind)
}

// prettyJSON shows an input summary readably.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// affectedLinks links an event to what it changed: decks, cards and
// study sessions, told apart by the tool (its audit projection lists a
// session first for the study tools, the deck first for the bulk card
// tools).
func affectedLinks(e contracts.AuditEvent) []auditLink {
	var in struct {
		DeckID string `json:"deckId"`
	}
	_ = json.Unmarshal(e.InputSummary, &in)
	var links []auditLink
	seen := map[string]bool{}
	add := func(kind, id string) {
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		if len(links) == 20 {
			links = append(links, auditLink{Label: "and more"})
		}
		if len(links) > 20 {
			return
		}
		l := auditLink{Label: kind + " …" + tail(id, 6)}
		switch kind {
		case "deck":
			l.Href = "/decks/" + url.PathEscape(id)
		case "card":
			l.Href = "/cards/" + url.PathEscape(id) + "/edit"
		case "note":
			l.Href = "/notes/" + url.PathEscape(id) + "/edit"
		case "study session":
			l.Href = study.StudyPath(id)
		case "API key":
			l.Href = "/settings/keys"
		}
		links = append(links, l)
	}
	add("deck", in.DeckID)
	for i, id := range e.AffectedIDs {
		switch {
		case deckTools[e.Tool]:
			add("deck", id)
		case e.Tool == contracts.ToolStartStudySession || e.Tool == contracts.ToolRenderStudySession:
			add(firstOr(i, "study session", "deck"), id)
		case e.Tool == contracts.ToolSubmitReview:
			add(firstOr(i, "study session", "card"), id)
		case e.Tool == contracts.ToolRequestMediaUpload:
			add("media", id)
		case e.Tool == contracts.ToolAddNotes || e.Tool == contracts.ToolUpdateNotes:
			add("note", id)
		case e.Tool == contracts.AuditCreateKey || e.Tool == contracts.AuditRevokeKey:
			add("API key", id)
		case e.Tool == contracts.AuditApproveGrant || e.Tool == contracts.AuditRevokeGrant:
			add("connected app", id)
		case e.Tool == contracts.AuditTrust:
			add("API key or app", id)
		default:
			add("card", id)
		}
	}
	return links
}

// firstOr returns first for index 0 and rest for the others.
func firstOr(i int, first, rest string) string {
	if i == 0 {
		return first
	}
	return rest
}

// tail returns the last n characters of an id.
func tail(id string, n int) string {
	if len(id) <= n {
		return id
	}
	return id[len(id)-n:]
}

// auditNameLookups bounds how many decks, cards and notes one audit page
// looks up to name its links; links past it keep their id suffix.
const auditNameLookups = 60

// nameLinks names the rows' links to decks, cards and notes by what they
// are now (a deck's name, a card's front, a note's first field, shortened);
// a link to something deleted since says so and links nowhere.
func (p *AccountPages) nameLinks(ctx context.Context, rows []auditRow) {
	names := map[string]string{} // href → label
	gone := map[string]bool{}
	lookups := 0
	for i := range rows {
		for j := range rows[i].Links {
			l := &rows[i].Links[j]
			kind, _, _ := strings.Cut(l.Label, " …")
			if l.Href == "" {
				continue
			}
			if name, ok := names[l.Href]; ok {
				l.Label = name
				if gone[l.Href] {
					l.Href = ""
				}
				continue
			}
			if lookups == auditNameLookups {
				continue
			}
			id, ok := auditLinkID(l.Href, kind)
			if !ok {
				continue
			}
			lookups++
			name, err := p.linkName(ctx, kind, id)
			switch {
			case contracts.IsKind(err, contracts.KindNotFound):
				names[l.Href], gone[l.Href] = "deleted "+l.Label, true
			case err != nil || name == "":
				names[l.Href] = l.Label
			default:
				names[l.Href] = kind + " “" + name + "”"
			}
			l.Label = names[l.Href]
			if gone[l.Href] {
				l.Href = ""
			}
		}
	}
}

// auditLinkID returns the id a deck, card or note link points to.
func auditLinkID(href, kind string) (string, bool) {
	var rest string
	switch kind {
	case "deck":
		rest = strings.TrimPrefix(href, "/decks/")
	case "card":
		rest = strings.TrimSuffix(strings.TrimPrefix(href, "/cards/"), "/edit")
	case "note":
		rest = strings.TrimSuffix(strings.TrimPrefix(href, "/notes/"), "/edit")
	default:
		return "", false
	}
	id, err := url.PathUnescape(rest)
	return id, err == nil && id != ""
}

// linkName is what a deck, card or note is called now, shortened.
func (p *AccountPages) linkName(ctx context.Context, kind, id string) (string, error) {
	switch kind {
	case "deck":
		d, err := p.svc.Decks.GetDeck(ctx, id)
		return p.content.Plain(d.Name, 40), err
	case "card":
		c, err := p.svc.Cards.GetCard(ctx, id)
		return p.content.Plain(c.Front, 40), err
	case "note":
		n, err := p.svc.Notes.GetNote(ctx, id)
		if err != nil || len(n.FieldNames) == 0 {
			return "", err
		}
		return p.content.Plain(n.Fields[n.FieldNames[0]], 40), nil
	}
	return "", nil
}
