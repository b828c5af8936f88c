package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Custom study (issue 31 §12, issue 28 §4): from a deck's page, a form
// builds a filtered deck, a saved search that gathers cards from their
// home decks into a deck to study; the filtered deck's page shows its
// search and rebuilds, empties or deletes it. The domain's filtered_deck
// does the work; these handlers only read the forms.

// customPreset is one of the custom study form's quick choices: the search
// it adds to the deck's, and the options it sets.
type customPreset struct {
	Key, Label, Hint string
	// Search is added after the deck's deck: word ("" for every card).
	Search     string
	Order      string
	Limit      int
	Reschedule bool
}

// customPresets are the quick choices, as Anki's custom study offers them.
var customPresets = []customPreset{
	{Key: "ahead", Label: "Review ahead", Hint: "Review cards due in the next 7 days; your answers reschedule them.",
		Search: "is:review prop:due>=1 prop:due<=7", Order: contracts.FilteredOrderDue, Limit: contracts.DefaultFilteredCards, Reschedule: true},
	{Key: "forgotten", Label: "Review forgotten cards", Hint: "Cards you have forgotten at least once, the most forgotten first; schedules stay as they are.",
		Search: "prop:lapses>=1", Order: contracts.FilteredOrderLapses, Limit: contracts.DefaultFilteredCards},
	{Key: "today", Label: "Go over today's cards", Hint: "The cards you rated today, once more; schedules stay as they are.",
		Search: "rated:1", Order: contracts.FilteredOrderDue, Limit: contracts.DefaultFilteredCards},
	{Key: "preview", Label: "Preview new cards", Hint: "Look at 20 new cards before their turn; they stay new.",
		Search: "is:new", Order: contracts.FilteredOrderAdded, Limit: 20},
	{Key: "cram", Label: "Cram at random", Hint: "Every card of the deck in a random order; schedules stay as they are.",
		Order: contracts.FilteredOrderRandom, Limit: contracts.DefaultFilteredCards},
}

// orderChoice is one order of the form's select.
type orderChoice struct{ Value, Label string }

// filteredOrders are the orders as the forms offer them
// (contracts.FilteredOrders, in words).
var filteredOrders = []orderChoice{
	{contracts.FilteredOrderDue, "Earliest due first"},
	{contracts.FilteredOrderAdded, "Oldest added first"},
	{contracts.FilteredOrderRandom, "Random"},
	{contracts.FilteredOrderLapses, "Most forgotten first"},
	{contracts.FilteredOrderInterval, "Shortest interval first"},
}

// orderLabel names order in words.
func orderLabel(order string) string {
	for _, o := range filteredOrders {
		if o.Value == order {
			return o.Label
		}
	}
	return order
}

// customPage is the custom study form of a deck.
type customPage struct {
	Deck    contracts.Deck
	Presets []customPreset
	// Preset is the quick choice the page shows ("" for none); the form's
	// first values are its.
	Preset              string
	Name, Search, Order string
	Limit               int
	Reschedule          bool
	Orders              []orderChoice
	// DeckTerm is the search word naming the deck (deck:"Name").
	DeckTerm string
}

// Options are the form's limit, order and reschedule fields (template
// "filtered-options"), explained, holding form when it was refused.
func (c customPage) Options(form Form) filteredOptions {
	return filteredOptions{Form: form, Limit: c.Limit, Order: c.Order, Reschedule: c.Reschedule, Orders: c.Orders, Explain: true}
}

// filteredOptions are the limit, order and reschedule fields a filtered
// deck's forms share (template "filtered-options" in layout.html): the
// values stored or suggested, the form as refused, the orders offered,
// and whether the form says what rescheduling means.
type filteredOptions struct {
	Form       Form
	Limit      int
	Order      string
	Reschedule bool
	Orders     []orderChoice
	Explain    bool
}

// deckTerm is the search word that names deck name: deck:"name", or
// with underscores for its spaces when it holds a double quote.
func deckTerm(name string) string {
	switch {
	case !strings.ContainsAny(name, " \t\"_"):
		return "deck:" + name
	case !strings.Contains(name, `"`):
		return `deck:"` + name + `"`
	default:
		return "deck:" + strings.ReplaceAll(name, " ", "_")
	}
}

// customName is the name the form suggests: "Custom study: " and the
// deck's own name (its last level), within the name's limit.
func customName(deck string) string {
	if i := strings.LastIndex(deck, contracts.DeckSeparator); i >= 0 {
		deck = deck[i+len(contracts.DeckSeparator):]
	}
	name := "Custom study: " + deck
	for utf8.RuneCountInString(name) > contracts.MaxDeckNameLen {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return strings.TrimSpace(name)
}

// newCustomPage is the form for deck with the quick choice key ("" or
// unknown: the deck's cards, earliest due first).
func newCustomPage(d contracts.Deck, key string) customPage {
	term := deckTerm(d.Name)
	page := customPage{Deck: d, Presets: customPresets, Name: customName(d.Name), Search: term,
		Order: contracts.FilteredOrderDue, Limit: contracts.DefaultFilteredCards, Orders: filteredOrders, DeckTerm: term}
	for _, p := range customPresets {
		if p.Key == key {
			page.Preset, page.Order, page.Limit, page.Reschedule = p.Key, p.Order, p.Limit, p.Reschedule
			page.Search = strings.TrimSpace(term + " " + p.Search)
		}
	}
	return page
}

// customStudy shows GET /decks/{id}/custom: the form, with ?preset= a
// quick choice's values in it.
func (p *DeckPages) customStudy(w http.ResponseWriter, r *http.Request, v View) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.renderCustom(w, r, v, http.StatusOK, newCustomPage(d, r.URL.Query().Get("preset")))
}

// renderCustom renders the custom study form with status.
func (p *DeckPages) renderCustom(w http.ResponseWriter, r *http.Request, v View, status int, page customPage) {
	v.Title, v.Nav, v.Data = "Custom study from "+page.Deck.Name, "decks", page
	p.site.R.Render(w, r, status, "custom-study", v)
}

// filteredArgs reads the options of the custom study and rebuild forms:
// search, limit (empty: the default), order, reschedule (a checkbox).
func filteredArgs(r *http.Request, action string) (contracts.FilteredDeckArgs, error) {
	search := r.PostFormValue("search")
	resched := r.PostFormValue("reschedule") != ""
	args := contracts.FilteredDeckArgs{Action: action, Search: &search, Order: r.PostFormValue("order"), Reschedule: &resched}
	limit, err := formInt(r, "limit")
	args.Limit = limit
	return args, err
}

// createFiltered handles POST /decks/{id}/custom: builds the filtered
// deck and opens it; a refusal shows the form again as typed, the reason
// beside its field.
func (p *DeckPages) createFiltered(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	d, err := p.svc.Decks.GetDeck(ctx, r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	args, err := filteredArgs(r, contracts.FilteredCreate)
	args.Name = r.PostFormValue("name")
	var f contracts.FilteredDeck
	if err == nil {
		f, err = p.svc.Filtered.FilteredDeck(ctx, args)
	}
	if err != nil {
		status, ok := refusedFiltered(r, &v, err)
		if !ok {
			p.site.Fail(w, r, v, err)
			return
		}
		page := newCustomPage(d, r.PostFormValue("preset"))
		p.renderCustom(w, r, v, status, page)
		return
	}
	p.audited(r, contracts.ToolFilteredDeck, args, f.DeckID)
	SeeOther(w, r, "/decks/"+f.DeckID+"?"+url.Values{"flash": {"built"}, "n": {strconv.Itoa(f.Gathered)}}.Encode())
}

// rebuildFiltered handles POST /decks/{id}/rebuild: the filtered deck's
// cards go home and its search (as the form changed it) gathers again.
func (p *DeckPages) rebuildFiltered(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	args, err := filteredArgs(r, contracts.FilteredRebuild)
	args.DeckID = id
	var f contracts.FilteredDeck
	if err == nil {
		f, err = p.svc.Filtered.FilteredDeck(r.Context(), args)
	}
	if err != nil {
		status, ok := refusedFiltered(r, &v, err)
		if !ok {
			p.site.Fail(w, r, v, err)
			return
		}
		p.renderDeck(w, r, v, status, "")
		return
	}
	p.audited(r, contracts.ToolFilteredDeck, args, id)
	SeeOther(w, r, "/decks/"+id+"?"+url.Values{"flash": {"rebuilt"}, "n": {strconv.Itoa(f.Gathered)}}.Encode())
}

// emptyFiltered handles POST /decks/{id}/empty: every card the filtered
// deck holds goes home; the deck and its search stay.
func (p *DeckPages) emptyFiltered(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	args := contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: id}
	f, err := p.svc.Filtered.FilteredDeck(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolFilteredDeck, args, id)
	SeeOther(w, r, "/decks/"+id+"?"+url.Values{"flash": {"emptied"}, "n": {strconv.Itoa(f.Returned)}}.Encode())
}

// refusedFiltered prepares v for a refused custom study or rebuild form:
// the message beside the field it concerns. A taken name is the name's;
// a refusal that names no field is about the search (a word the domain
// names, "search word is:sleeping: …").
func refusedFiltered(r *http.Request, v *View, err error) (int, bool) {
	status, ok := refused(r, v, err, "search", "name", "limit", "order")
	if !ok {
		return status, false
	}
	field := ""
	switch {
	case contracts.IsKind(err, contracts.KindConflict):
		field = "name"
	case v.Form.Errors == nil:
		field = "search"
	}
	if field != "" {
		v.Form.Errors = map[string]string{field: contracts.MessageOf(err)}
		v.Error = "Nothing was saved: see the message beside the field."
	}
	return status, true
}

// filteredFlash is the flash of a custom study redirect (built, rebuilt,
// emptied, with its count n); "" for any other.
func filteredFlash(r *http.Request) string {
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("n"))
	if err != nil || n < 0 {
		return ""
	}
	switch q.Get("flash") {
	case "built":
		if n == 0 {
			return "Filtered deck made, but no card matched its search: change the search below and rebuild."
		}
		return "Filtered deck made with " + plural(n, "card", "cards") + " from their home decks."
	case "rebuilt":
		return "Rebuilt: " + plural(n, "card", "cards") + " gathered."
	case "emptied":
		return "Emptied: " + plural(n, "card", "cards") + " went back to their home decks."
	}
	return ""
}

// filteredDeckIDs are the ids of the user's filtered decks.
func filteredDeckIDs(ctx context.Context, svc ports.FilteredDeckService) (map[string]bool, error) {
	list, err := svc.FilteredDecks(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(list))
	for _, f := range list {
		out[f.DeckID] = true
	}
	return out, nil
}

// filteredDeckOf returns deck id's filtered deck, nil for a plain deck.
func (p *DeckPages) filteredDeckOf(ctx context.Context, id string) (*contracts.FilteredDeck, error) {
	f, err := p.svc.Filtered.Filtered(ctx, id)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// filteredIDs are the ids of the user's filtered decks (the deck list
// marks them).
func (p *DeckPages) filteredIDs(ctx context.Context) (map[string]bool, error) {
	return filteredDeckIDs(ctx, p.svc.Filtered)
}
