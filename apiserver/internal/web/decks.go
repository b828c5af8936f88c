package web

import (
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/ports"
)

// DeckServices are the driving ports the deck, card and study pages use.
type DeckServices struct {
	Decks ports.DeckService
	Cards ports.CardService
	Study ports.StudyService
	// Audit records the pages' changes in the audit trail.
	Audit  ports.AuditService
	Stats  ports.StatsService
	Export ports.ExportService
	// Media, Import and Jobs serve the import page (its upload, the import
	// job and the job's progress); Jobs also shows the progress of the
	// optimisation a settings page started.
	Media  ports.MediaService
	Import ports.ImportService
	Jobs   ports.JobService
	// Notes adds notes from the deck page, edits a card's note from its
	// edit page, and gives the study view a card's note type stylesheet.
	Notes ports.NoteService
	// Filtered builds, rebuilds and empties filtered decks (custom study)
	// and tells the deck pages which decks are filtered.
	Filtered ports.FilteredDeckService
}

// DeckPages serve the decks, a deck's cards, pasting cards and studying.
// Every handler calls the domain services for the signed-in person and
// renders a template; no domain rule lives here. Card text reaches a page
// only through the domain's content renderer.
type DeckPages struct {
	site    *Site
	svc     DeckServices
	content *content.Renderer
}

// NewDeckPages returns the pages.
func NewDeckPages(site *Site, svc DeckServices) *DeckPages {
	return &DeckPages{site: site, svc: svc, content: content.New()}
}

// Register adds the pages' routes to mux.
//
//	GET  /decks, POST /decks                 the decks with their counts; create one
//	GET  /decks/{id}                         a deck's cards: search, filters, add one
//	POST /decks/{id}/cards                   add one card
//	POST /decks/{id}/notes                   add one note of a stock or own note type (?type= on the deck page shows its fields)
//	GET  /decks/{id}/paste, POST …           paste many: preview, then add
//	GET  /decks/{id}/settings, POST …        rename, limits, retention
//	POST /decks/{id}/optimize, …/cancel      optimise the preset's weights; stop it
//	GET  /decks/{id}/retention               workload at several desired retentions
//	GET  /decks/{id}/delete, POST …          delete, after a confirmation
//	GET  /decks/{id}/custom, POST …          custom study: a filtered deck from a search (?preset= a quick choice)
//	POST /decks/{id}/rebuild, …/empty        a filtered deck: gather its cards again (the search as changed); send them home
//	POST /decks/{id}/study                   start a session → /study/{sessionId} (aheadDays=N: study ahead; cram=1: cram)
//	POST /editor/upload                      an upload intent for an image or sound put into a card's field (JSON, for the editor's script)
//	GET  /cards                              the card browser: every deck's cards, search, a page at a time
//	POST /cards/bulk                         suspend, unsuspend, bury, move, tag, untag or delete the chosen cards
//	GET  /cards/{id}                         a card: its text, deck, tags and schedule
//	GET  /cards/{id}/edit, POST /cards/{id}  edit, move (a card made from a note: its note's form)
//	POST /notes/{id}                         change a note's fields and tags (its cards follow), move the card it was opened from
//	GET  /notes/{id}/edit                    → the edit form of the note's first card (the audit trail links notes here)
//	POST /cards/{id}/suspend, …/delete       suspend or unsuspend; delete
//	GET  /cards/{id}/style.css               the CSS of a card's note type, scoped to the study view's card
//	GET  /study/{id}                         study: front, reveal, rate
//	POST /study/{id}/review                  rate the current card
//	POST /editor/preview                     the editor's live preview: the cards the form would make (JSON)
//	GET  /study/{id}/upcoming                the next cards, for studying offline (JSON)
//	POST /study/{id}/queued                  a rating given offline, at its original time (JSON)
//	POST /study/{id}/undo                    take back the session's last rating
//	POST /study/{id}/bury, …/suspend, …/mark bury, suspend, mark (tag "marked") the current card; its Edit opens /cards/{id}/edit?next=/study/{id}
func (p *DeckPages) Register(mux Router) {
	s := p.site
	mux.Handle("GET /decks", s.Page(p.decks))
	mux.Handle("POST /decks", s.Page(p.createDeck))
	mux.Handle("GET /decks/{id}", s.Page(p.deck))
	mux.Handle("POST /decks/{id}/cards", s.Page(p.addCard))
	mux.Handle("POST /decks/{id}/notes", s.Page(p.addNote))
	mux.Handle("GET /decks/{id}/paste", s.Page(p.paste))
	mux.Handle("POST /decks/{id}/paste", s.Page(p.pastePost))
	mux.Handle("GET /decks/{id}/settings", s.Page(p.settings))
	mux.Handle("POST /decks/{id}/settings", s.Page(p.saveSettings))
	mux.Handle("POST /decks/{id}/optimize", s.Page(p.optimize))
	mux.Handle("POST /decks/{id}/optimize/cancel", s.Page(p.cancelOptimize))
	mux.Handle("GET /decks/{id}/retention", s.Page(p.retention))
	mux.Handle("GET /decks/{id}/delete", s.Page(p.confirmDelete))
	mux.Handle("POST /decks/{id}/delete", s.Page(p.deleteDeck))
	mux.Handle("GET /decks/{id}/custom", s.Page(p.customStudy))
	mux.Handle("POST /decks/{id}/custom", s.Page(p.createFiltered))
	mux.Handle("POST /decks/{id}/rebuild", s.Page(p.rebuildFiltered))
	mux.Handle("POST /decks/{id}/empty", s.Page(p.emptyFiltered))
	mux.Handle("POST /decks/{id}/study", s.Page(p.startStudy))
	mux.Handle("POST /decks/{id}/export", s.Page(p.exportDeck))
	mux.Handle("GET /cards", s.Page(p.browse))
	mux.Handle("POST /cards/bulk", s.Page(p.bulk))
	mux.Handle("GET /cards/{id}", s.Page(p.cardInfo))
	mux.Handle("GET /cards/{id}/edit", s.Page(p.editCard))
	mux.Handle("POST /cards/{id}", s.Page(p.saveCard))
	mux.Handle("POST /cards/{id}/suspend", s.Page(p.suspendCard))
	mux.Handle("POST /cards/{id}/delete", s.Page(p.deleteCard))
	mux.Handle("POST /notes/{id}", s.Page(p.saveNote))
	mux.Handle("GET /notes/{id}/edit", s.Page(p.editNoteByID))
	mux.Handle("GET /import", s.Page(p.importPage))
	mux.Handle("POST /import/upload", s.Page(p.importUpload))
	mux.Handle("POST /editor/upload", s.Page(p.editorUpload))
	mux.Handle("POST /editor/preview", s.Page(p.editorPreview))
	mux.Handle("POST /import", s.Page(p.importStart))
	mux.Handle("GET /import/{id}", s.Page(p.importJob))
	mux.Handle("GET /cards/{id}/style.css", s.Page(p.cardStyle))
	mux.Handle("GET /study/{id}", s.Page(p.study))
	mux.Handle("POST /study/{id}/review", s.Page(p.review))
	mux.Handle("GET /study/{id}/upcoming", s.Page(p.upcoming))
	mux.Handle("POST /study/{id}/queued", s.Page(p.queuedReview))
	mux.Handle("POST /study/{id}/undo", s.Page(p.undo))
	mux.Handle("POST /study/{id}/bury", s.Page(p.bury))
	mux.Handle("POST /study/{id}/suspend", s.Page(p.studySuspend))
	mux.Handle("POST /study/{id}/mark", s.Page(p.studyMark))
	mux.Handle("POST /study/{id}/flag", s.Page(p.studyFlag))
	mux.Handle("POST /decks/{id}/unbury", s.Page(p.unbury))
}

// audited records a page change in the audit trail (see Site.Audited).
func (p *DeckPages) audited(r *http.Request, tool string, input any, affected ...string) {
	p.site.Audited(r, p.svc.Audit, tool, input, affected...)
}

// createdIDs are the ids of a bulk result's created items.
func createdIDs(res contracts.BulkResult) []string {
	out := []string{}
	for _, it := range res.Items {
		if it.Status == contracts.OutcomeCreated {
			out = append(out, it.ID)
		}
	}
	return out
}

// mediaURL resolves a media id for a page (the web session reads it).
func mediaURL(id string) string { return "/media/" + id }

// html renders card text for a page.
func (p *DeckPages) html(src string) template.HTML {
	return template.HTML(p.content.Render(src, mediaURL).HTML) //nolint:gosec // sanitised by domain/content
}

func (p *DeckPages) decks(w http.ResponseWriter, r *http.Request, v View) {
	p.renderDecks(w, r, v, http.StatusOK)
}

// renderDecks shows the deck list with its new-deck form (v.Form when a
// refused one comes back) and status.
func (p *DeckPages) renderDecks(w http.ResponseWriter, r *http.Request, v View, status int) {
	page, err := p.svc.Decks.ListDecks(r.Context(), contracts.ListDecksArgs{Cursor: r.URL.Query().Get("cursor"), Limit: 100})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	filtered, err := p.filteredIDs(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	// Each deck's due and new counts are what a session started now
	// serves (the study service's snapshot), as on Today and the deck page.
	for i, d := range page.Items {
		if page.Items[i].Counts, err = p.todaysCounts(r, d); err != nil {
			p.site.Fail(w, r, v, err)
			return
		}
	}
	// The page's decks as a tree: a parent before the decks below it,
	// each indented under it and named by its last level.
	tree := deckTree(page.Items)
	byID := make(map[string]contracts.Deck, len(page.Items))
	for _, d := range page.Items {
		byID[d.ID] = d
	}
	data := decksPage{DeckPage: page, Filtered: filtered, Indent: map[string]string{}, Short: map[string]string{}}
	data.Items = make([]contracts.Deck, 0, len(tree))
	for _, o := range tree {
		data.Items = append(data.Items, byID[o.ID])
		data.Indent[o.ID], data.Short[o.ID] = o.Indent(), o.Name
	}
	v.Title, v.Nav, v.Flash = "Decks", "decks", deckFlash(r)
	v.Data = data
	p.site.R.Render(w, r, status, "decks", v)
}

// decksPage is the deck list: a page of decks and which are filtered.
type decksPage struct {
	contracts.DeckPage
	// Filtered holds the ids of the filtered decks (custom study).
	Filtered map[string]bool
	// Indent and Short are, by deck id, the indent of a deck below
	// another on the page and its name's last level (the deck tree).
	Indent, Short map[string]string
}

func (p *DeckPages) createDeck(w http.ResponseWriter, r *http.Request, v View) {
	args := contracts.CreateDeckArgs{Name: r.PostFormValue("name"), Description: r.PostFormValue("description")}
	d, err := p.svc.Decks.CreateDeck(r.Context(), args)
	if err != nil {
		status, ok := refused(r, &v, err, "name", "description")
		if !ok {
			p.site.Fail(w, r, v, err)
			return
		}
		if contracts.IsKind(err, contracts.KindConflict) && v.Form.Errors == nil {
			v.Form.Errors, v.Error = map[string]string{"name": contracts.MessageOf(err)}, "" // a deck of that name exists
		}
		p.renderDecks(w, r, v, status)
		return
	}
	p.audited(r, contracts.ToolCreateDeck, args, d.ID)
	SeeOther(w, r, "/decks/"+d.ID+"?flash=created")
}

// todaysCounts are deck d's counts as the pages show them: DueNow the
// learning and review cards and New the new cards a session started now
// serves today (the study service's snapshot, the function sessions
// build their queue with; for a filtered deck every card it holds,
// outside the daily limits, as its session serves them), the rest as
// stored.
func (p *DeckPages) todaysCounts(r *http.Request, d contracts.Deck) (contracts.DeckCounts, error) {
	snap, err := p.svc.Study.Snapshot(r.Context(), d.ID)
	c := d.Counts
	c.DueNow, c.New = snap.DueToday, snap.NewToday
	return c, err
}

// cardRow is one card in a deck's list.
type cardRow struct {
	contracts.Card
	FrontText, BackText string
	Due                 bool
}

type deckData struct {
	Deck     contracts.Deck
	Cards    []cardRow
	Next     string // the next page's address (path and query)
	Query    string
	Filter   string
	Tag      string
	Decks    []contracts.Deck // for moving
	Filtered bool
	// Types are the note types the add form offers (stock, then own);
	// Type is the one ?type= chose, whose fields the form shows (nil: the
	// plain front-and-back card).
	Types []contracts.NoteTypeInfo
	Type  *contracts.NoteTypeInfo
	// FilteredDeck is the deck's search and options when it is a
	// filtered deck (custom study), nil for a plain deck; Orders are the
	// orders its rebuild form offers.
	FilteredDeck *contracts.FilteredDeck
	Orders       []orderChoice
}

// OrderLabel names a filtered deck's order in words.
func (deckData) OrderLabel(order string) string { return orderLabel(order) }

// RebuildOptions are the rebuild form's limit, order and reschedule
// fields (template "filtered-options") with the filtered deck's values,
// holding form when it was refused.
func (d deckData) RebuildOptions(form Form) filteredOptions {
	o := filteredOptions{Form: form, Orders: d.Orders}
	if f := d.FilteredDeck; f != nil {
		o.Limit, o.Order, o.Reschedule = f.Limit, f.Order, f.Reschedule
	}
	return o
}

// OwnTypes reports whether the user has note types of their own.
func (d deckData) OwnTypes() bool {
	return slices.ContainsFunc(d.Types, func(t contracts.NoteTypeInfo) bool { return t.ID != "" })
}

// findNoteType returns the type ref names in types (an own type's id or
// a stock type's name).
func findNoteType(types []contracts.NoteTypeInfo, ref string) (contracts.NoteTypeInfo, bool) {
	for _, t := range types {
		if ref != "" && t.Ref() == ref {
			return t, true
		}
	}
	return contracts.NoteTypeInfo{}, false
}

func (p *DeckPages) deck(w http.ResponseWriter, r *http.Request, v View) {
	p.renderDeck(w, r, v, http.StatusOK, r.URL.Query().Get("type"))
}

// renderDeck shows a deck's page with status: its cards as the query asks
// and the add form of note type typeRef (the plain card when none),
// holding v.Form when a refused one comes back.
func (p *DeckPages) renderDeck(w http.ResponseWriter, r *http.Request, v View, status int, typeRef string) {
	ctx := r.Context()
	d, err := p.svc.Decks.GetDeck(ctx, r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	q := r.URL.Query()
	args := contracts.SearchCardsArgs{DeckID: d.ID, Query: strings.TrimSpace(q.Get("q")), Cursor: q.Get("cursor"), Limit: 50}
	filter := q.Get("filter")
	switch filter {
	case "due":
		now, err := contracts.ParseDateOrTime(time.Now().UTC().Format(time.RFC3339))
		if err == nil {
			args.DueBefore = &now
		}
	case "suspended", "new", "learning", "review":
		args.State = filter
	default:
		filter = ""
	}
	if tag := strings.TrimSpace(q.Get("tag")); tag != "" {
		args.Tags = []string{tag}
	}
	page, err := p.svc.Cards.SearchCards(ctx, args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data := deckData{Deck: d, Query: args.Query, Filter: filter, Tag: q.Get("tag"), Filtered: args.Query != "" || filter != "" || len(args.Tags) > 0,
		Orders: filteredOrders}
	if data.FilteredDeck, err = p.filteredDeckOf(ctx, d.ID); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if data.Deck.Counts, err = p.todaysCounts(r, d); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if data.Types, err = p.svc.Notes.NoteTypes(ctx); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if t, ok := findNoteType(data.Types, typeRef); ok {
		data.Type = &t
	}
	now := time.Now()
	for _, c := range page.Items {
		data.Cards = append(data.Cards, cardRow{Card: c, FrontText: p.content.Plain(c.Front, 80), BackText: p.content.Plain(c.Back, 80),
			Due: !c.Suspended && c.State.Phase != contracts.PhaseNew && !c.State.Due.After(now)})
	}
	if page.NextCursor != "" {
		nq := r.URL.Query()
		nq.Set("cursor", page.NextCursor)
		data.Next = "/decks/" + d.ID + "?" + nq.Encode()
	}
	v.Title, v.Nav, v.Flash, v.Data = d.Name, "decks", deckFlash(r), data
	if f := filteredFlash(r); f != "" {
		v.Flash = f
	}
	p.site.R.Render(w, r, status, "deck", v)
}

func (p *DeckPages) addCard(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	res, err := p.svc.Cards.AddCards(r.Context(), contracts.AddCardsArgs{DeckID: id, Cards: []contracts.NewCard{{
		Front: r.PostFormValue("front"), Back: r.PostFormValue("back"), Tags: strings.Fields(r.PostFormValue("tags")),
	}}})
	if err == nil && res.Items[0].Status == contracts.OutcomeInvalid {
		err = contracts.Errorf(contracts.KindInvalid, "The card was not added: %s", res.Items[0].Reason)
	}
	if err != nil {
		if status, ok := refused(r, &v, err, "front", "back", "tags"); ok {
			p.renderDeck(w, r, v, status, "")
			return
		}
		p.site.Fail(w, r, v, err)
		return
	}
	it := res.Items[0]
	if it.Status == contracts.OutcomeCreated {
		p.audited(r, contracts.ToolAddCards, map[string]any{"deckId": id, "cards": 1}, it.ID)
	}
	switch it.Status {
	case contracts.OutcomeDuplicate:
		SeeOther(w, r, "/decks/"+id+"?flash=duplicate")
		return
	}
	SeeOther(w, r, "/decks/"+id+"?flash=added")
}

// addNote adds one note of the chosen note type, its fields posted as
// field-0, field-1, … in the type's order, and comes back to the deck
// with the same type chosen, ready for the next note.
func (p *DeckPages) addNote(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	id := r.PathValue("id")
	types, err := p.svc.Notes.NoteTypes(ctx)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	t, ok := findNoteType(types, r.PostFormValue("noteType"))
	if !ok {
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "The note was not added: choose one of the note types the form lists."))
		return
	}
	fields := make(map[string]string, len(t.Fields))
	for i, name := range t.Fields {
		fields[name] = r.PostFormValue("field-" + strconv.Itoa(i))
	}
	res, err := p.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: id, Notes: []contracts.NewNote{{
		NoteType: t.Ref(), Fields: fields, Tags: strings.Fields(r.PostFormValue("tags")),
	}}})
	if err != nil {
		p.refuseNewNote(w, r, v, t, err)
		return
	}
	it := res.Items[0]
	back := "/decks/" + id + "?" + url.Values{"type": {t.Ref()}}.Encode() + "&flash="
	switch it.Status {
	case contracts.OutcomeCreated:
		p.audited(r, contracts.ToolAddNotes, map[string]any{"deckId": id, "notes": 1, "noteType": t.Ref()}, it.ID)
		SeeOther(w, r, back+"note-added#add")
	case contracts.OutcomeDuplicate:
		SeeOther(w, r, back+"duplicate#add")
	default:
		p.refuseNewNote(w, r, v, t, contracts.Errorf(contracts.KindInvalid, "The note was not added: %s", it.Reason))
	}
}

// refuseNewNote shows the deck page again with the note's form as typed
// and err's message beside the field it names (a note's message names the
// field as its type does: "field \"Back\" is …").
func (p *DeckPages) refuseNewNote(w http.ResponseWriter, r *http.Request, v View, t contracts.NoteTypeInfo, err error) {
	status, ok := refused(r, &v, err)
	if !ok {
		p.site.Fail(w, r, v, err)
		return
	}
	for i, name := range t.Fields {
		if strings.Contains(v.Error, strconv.Quote(name)) {
			v.Form.Errors = map[string]string{"field-" + strconv.Itoa(i): v.Error}
			v.Error = "Nothing was saved: see the message beside the field."
			break
		}
	}
	p.renderDeck(w, r, v, status, t.Ref())
}

// flashes are the one-line messages a redirect may ask for.
var flashes = map[string]string{
	"created": "Deck created. Add cards one by one or paste many.", "added": "Card added.",
	"duplicate": "That card is already in this deck; nothing was added.", "saved": "Saved.",
	"deleted": "Deleted.", "suspended": "Card suspended.", "unsuspended": "Card back in the queue.",
	"imported": "Cards added.", "note-added": "Note added, with the cards its type makes.",
	"note-saved":       "Note saved; its cards show the new text and keep their scheduling.",
	"note-saved-stale": "Note saved. Some of its cards are no longer made by it and were left as they are; delete them if you do not want them.",
	"unburied":         "Buried cards are back in today's study.",
}

func deckFlash(r *http.Request) string { return flashes[r.URL.Query().Get("flash")] }

type pasteData struct {
	Deck    contracts.Deck
	Text    string
	Format  string
	Preview *previewData
}

type previewRow struct {
	contracts.ItemOutcome
	Num         int // 1-based, for people
	Front, Back string
}

type previewData struct {
	Rows                         []previewRow
	Created, Duplicates, Invalid int
	DecksCreated                 []string
}

func (p *DeckPages) paste(w http.ResponseWriter, r *http.Request, v View) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Data = "Paste cards into "+d.Name, "decks", pasteData{Deck: d, Format: "auto"}
	p.site.Render(w, r, "paste", v)
}

func (p *DeckPages) pastePost(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	d, err := p.svc.Decks.GetDeck(ctx, r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	args := contracts.ImportCardsArgs{DeckID: d.ID, Text: r.PostFormValue("text"), Format: contracts.ImportFormat(r.PostFormValue("format"))}
	data := pasteData{Deck: d, Text: args.Text, Format: string(args.Format)}
	v.Title, v.Nav = "Paste cards into "+d.Name, "decks"
	if r.PostFormValue("action") == "import" {
		args.IdempotencyKey = r.PostFormValue("key")
		res, err := p.svc.Cards.ImportCards(ctx, args)
		if err == nil {
			p.audited(r, contracts.ToolImportCards, map[string]any{"deckId": d.ID, "format": args.Format, "bytes": len(args.Text),
				"counts": res.Counts}, createdIDs(res)...)
			SeeOther(w, r, "/decks/"+d.ID+"?flash=imported&created="+strconv.Itoa(res.Counts[string(contracts.OutcomeCreated)]))
			return
		}
		if !contracts.IsKind(err, contracts.KindInvalid) {
			p.site.Fail(w, r, v, err)
			return
		}
		v.Error = contracts.MessageOf(err)
	} else {
		res, err := p.svc.Cards.PreviewImport(ctx, args)
		switch {
		case err == nil:
			data.Preview = p.preview(args.Text, args.Format, res)
		case contracts.IsKind(err, contracts.KindInvalid):
			v.Error = contracts.MessageOf(err)
		default:
			p.site.Fail(w, r, v, err)
			return
		}
	}
	v.Data = data
	status := http.StatusOK
	if v.Error != "" {
		status = httperr.Status(contracts.KindInvalid)
	}
	p.site.R.Render(w, r, status, "paste", v)
}

// preview pairs each outcome with the card it is about (by index into the
// parsed cards; outcomes are one per card in text order).
func (p *DeckPages) preview(text string, format contracts.ImportFormat, res contracts.BulkResult) *previewData {
	out := &previewData{DecksCreated: res.DecksCreated}
	for _, it := range res.Items {
		row := previewRow{ItemOutcome: it, Num: it.Index + 1}
		switch it.Status {
		case contracts.OutcomeCreated:
			out.Created++
		case contracts.OutcomeDuplicate:
			out.Duplicates++
		case contracts.OutcomeInvalid:
			out.Invalid++
		}
		out.Rows = append(out.Rows, row)
	}
	cards := previewCards(text, format)
	for i := range out.Rows {
		if idx := out.Rows[i].Index; idx >= 0 && idx < len(cards) {
			out.Rows[i].Front, out.Rows[i].Back = p.content.Plain(cards[idx].Front, 60), p.content.Plain(cards[idx].Back, 60)
		}
	}
	return out
}

// previewCards reads the pasted cards in order, for showing each outcome's
// front and back (the domain decided the outcomes).
func previewCards(text string, format contracts.ImportFormat) []contracts.NewCard {
	parsed, err := cardtext.Parse(text, format)
	if err != nil {
		return nil
	}
	cards := make([]contracts.NewCard, 0, len(parsed.Records))
	for _, rec := range parsed.Records {
		cards = append(cards, rec.Card)
	}
	return cards
}
