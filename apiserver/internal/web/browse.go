package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// browsePage is how many cards the card browser shows a page.
const browsePage = 50

// deckOption is one deck in the card browser's deck list, indented under
// its parent in the "Parent::Child" naming of nested decks.
type deckOption struct {
	ID, Name string // Name is the last part of the deck's name
	Depth    int
	Full     string
}

// Indent is the option's indentation by depth (non-breaking spaces, as a
// select's options keep no padding).
func (o deckOption) Indent() string { return strings.Repeat("\u00a0\u00a0\u00a0", o.Depth) }

// browseRow is one card in the browser's table.
type browseRow struct {
	contracts.Card
	FrontText, BackText string
	Deck                string
}

// browseData is the card browser page.
type browseData struct {
	Cards    []browseRow
	Decks    []deckOption
	Query    string
	DeckID   string
	Tag      string
	Filtered bool
	// Sorts are the orders offered, the chosen one selected; Desc says the
	// order is reversed.
	Sorts []option
	Desc  bool
	Flags []option // the bulk action's flags
	Next  string   // the next page's address
	// Here is this page's address, where a bulk action comes back to.
	Here string
}

// deckTree orders decks as a tree by their "::"-separated names: a
// parent before its children, each level by name.
func deckTree(decks []contracts.Deck) []deckOption {
	sorted := slices.Clone(decks)
	slices.SortFunc(sorted, func(a, b contracts.Deck) int {
		return slices.Compare(strings.Split(strings.ToLower(a.Name), "::"), strings.Split(strings.ToLower(b.Name), "::"))
	})
	out := make([]deckOption, len(sorted))
	for i, d := range sorted {
		parts := strings.Split(d.Name, "::")
		out[i] = deckOption{ID: d.ID, Name: parts[len(parts)-1], Depth: len(parts) - 1, Full: d.Name}
	}
	return out
}

// browse is the card browser: every card of the account, searched with
// the search syntax of search_cards (words, is:new … is:buried,
// is:leech), one deck or all, a tag, a page at a time, with bulk actions
// on the chosen cards.
func (p *DeckPages) browse(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	q := r.URL.Query()
	args := contracts.SearchCardsArgs{Query: strings.TrimSpace(q.Get("q")), DeckID: q.Get("deck"), Cursor: q.Get("cursor"), Limit: browsePage,
		Sort: contracts.CardSort(q.Get("sort")), Descending: q.Get("order") == "desc"}
	if tag := strings.TrimSpace(q.Get("tag")); tag != "" {
		args.Tags = []string{tag}
	}
	decks, err := p.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Limit: 100})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data := browseData{Decks: deckTree(decks.Items), Query: args.Query, DeckID: args.DeckID, Tag: q.Get("tag"),
		Filtered: args.Query != "" || args.DeckID != "" || len(args.Tags) > 0 || args.Sort != "", Here: r.URL.RequestURI(),
		Sorts: sortOptions(args.Sort), Desc: args.Descending, Flags: flagOptions(1)}
	v.Title, v.Nav, v.Flash = "Cards", "cards", bulkFlash(r)
	page, err := p.svc.Cards.SearchCards(ctx, args)
	if err != nil {
		if contracts.IsKind(err, contracts.KindInvalid) || contracts.IsKind(err, contracts.KindNotFound) {
			// A search that cannot run is said above the form, which keeps it.
			v.Error, v.Data = contracts.MessageOf(err), data
			p.site.R.Render(w, r, httperr.Status(contracts.KindOf(err)), "cards", v)
			return
		}
		p.site.Fail(w, r, v, err)
		return
	}
	names := map[string]string{}
	for _, d := range decks.Items {
		names[d.ID] = d.Name
	}
	for _, c := range page.Items {
		name, ok := names[c.DeckID]
		if !ok { // beyond the first hundred decks
			if d, err := p.svc.Decks.GetDeck(ctx, c.DeckID); err == nil {
				name, names[c.DeckID] = d.Name, d.Name
			}
		}
		data.Cards = append(data.Cards, browseRow{Card: c, FrontText: p.content.Plain(c.Front, 60), BackText: p.content.Plain(c.Back, 60), Deck: name})
	}
	if page.NextCursor != "" {
		nq := r.URL.Query()
		nq.Del("flash")
		nq.Set("cursor", page.NextCursor)
		data.Next = "/cards?" + nq.Encode()
	}
	v.Data = data
	p.site.Render(w, r, "cards", v)
}

// sortOptions are the card browser's orders, chosen selected.
func sortOptions(chosen contracts.CardSort) []option {
	out := []option{{Value: "", Label: "Default"}}
	for _, o := range []struct {
		sort  contracts.CardSort
		label string
	}{{contracts.SortDue, "Due"}, {contracts.SortInterval, "Interval"}, {contracts.SortDifficulty, "Difficulty"},
		{contracts.SortLapses, "Lapses"}, {contracts.SortAdded, "Added"}} {
		out = append(out, option{Value: string(o.sort), Label: o.label, Selected: o.sort == chosen})
	}
	return out
}

// bulkActions are what the card browser does to the chosen cards.
var bulkActions = []string{"suspend", "unsuspend", "bury", "move", "tag", "untag", "flag", "delete"}

// bulk applies one action to the cards chosen in the browser (card=ID,
// repeated; at most a page's worth) through the same services the tools
// use, audits it under the tool's name (update_cards and delete_cards
// also keep change records, so the audit page can undo them), and goes
// back to the browser's page (back) saying what happened.
func (p *DeckPages) bulk(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	_ = r.ParseForm()
	ids := r.PostForm["card"]
	action := r.PostFormValue("action")
	back := SafeNext(r.PostFormValue("back"))
	if !strings.HasPrefix(back, "/cards") {
		back = "/cards"
	}
	switch {
	case !slices.Contains(bulkActions, action):
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "Choose one of the actions the card list offers."))
		return
	case len(ids) == 0:
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "No card was chosen: tick the cards first, then choose what to do with them."))
		return
	case len(ids) > contracts.MaxSearchResults:
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "At most %d cards at a time.", contracts.MaxSearchResults))
		return
	}
	var (
		res contracts.BulkResult
		err error
	)
	switch action {
	case "bury":
		args := contracts.BuryCardsArgs{CardIDs: ids}
		if res, err = p.svc.Study.BuryCards(ctx, args); err == nil {
			p.audited(r, contracts.ToolBuryCards, args, ids...)
		}
	case "delete":
		args := contracts.DeleteCardsArgs{CardIDs: ids}
		if res, err = p.svc.Cards.DeleteCards(ctx, args); err == nil {
			p.audited(r, contracts.ToolDeleteCards, args, ids...)
		}
	default:
		var patches []contracts.CardPatch
		if patches, err = p.bulkPatches(r, action, ids); err == nil {
			args := contracts.UpdateCardsArgs{Updates: patches}
			if res, err = p.svc.Cards.UpdateCards(ctx, args); err == nil {
				p.audited(r, contracts.ToolUpdateCards, args, ids...)
			}
		}
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	u, _ := url.Parse(back)
	bq := u.Query()
	bq.Set("flash", action)
	bq.Set("done", fmt.Sprint(res.Counts[string(contracts.OutcomeUpdated)]+res.Counts[string(contracts.OutcomeDeleted)]))
	if n := len(ids) - res.Counts[string(contracts.OutcomeUpdated)] - res.Counts[string(contracts.OutcomeDeleted)]; n > 0 {
		bq.Set("skipped", fmt.Sprint(n))
		for _, it := range res.Items {
			if it.Reason != "" {
				bq.Set("why", it.Reason)
				break
			}
		}
	}
	if action == "delete" || action == "move" {
		bq.Del("cursor") // the page the cards were on changed
	}
	SeeOther(w, r, "/cards?"+bq.Encode())
}

// bulkPatches are update_cards' patches for a bulk action: suspend or
// unsuspend, move to deckId, or add (tag) or remove (untag) the tag typed.
func (p *DeckPages) bulkPatches(r *http.Request, action string, ids []string) ([]contracts.CardPatch, error) {
	out := make([]contracts.CardPatch, 0, len(ids))
	switch action {
	case "suspend", "unsuspend":
		on := action == "suspend"
		for _, id := range ids {
			out = append(out, contracts.CardPatch{ID: id, Suspended: &on})
		}
	case "move":
		deck := r.PostFormValue("deckId")
		if deck == "" {
			return nil, contracts.Errorf(contracts.KindInvalid, "Choose the deck to move the cards to.")
		}
		for _, id := range ids {
			out = append(out, contracts.CardPatch{ID: id, DeckID: &deck})
		}
	case "flag":
		flag, err := formFlag(r)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out = append(out, contracts.CardPatch{ID: id, Flag: &flag})
		}
	case "tag", "untag":
		tag := strings.TrimSpace(r.PostFormValue("tag"))
		if tag == "" || strings.ContainsAny(tag, " \t\n") {
			return nil, contracts.Errorf(contracts.KindInvalid, "Type one tag (no spaces) to add or remove.")
		}
		for _, id := range ids {
			c, err := p.svc.Cards.GetCard(r.Context(), id)
			if contracts.IsKind(err, contracts.KindNotFound) {
				continue // reported as not found by no outcome: it is gone
			}
			if err != nil {
				return nil, err
			}
			tags := slices.DeleteFunc(slices.Clone(c.Tags), func(t string) bool { return strings.EqualFold(t, tag) })
			if action == "tag" {
				tags = append(tags, tag)
			}
			out = append(out, contracts.CardPatch{ID: id, Tags: &tags})
		}
	}
	return out, nil
}

// bulkFlash says what a bulk action did, from the redirect's query.
func bulkFlash(r *http.Request) string {
	q := r.URL.Query()
	verbs := map[string]string{"suspend": "suspended", "unsuspend": "back in the queue", "bury": "buried until tomorrow",
		"move": "moved", "tag": "tagged", "untag": "untagged", "flag": "flagged (or unflagged)", "delete": "deleted (in the trash for 30 days; the audit page can undo it)"}
	verb, ok := verbs[q.Get("flash")]
	if !ok {
		return ""
	}
	msg := plural(atoi(q.Get("done")), "card", "cards") + " " + verb + "."
	if n := atoi(q.Get("skipped")); n > 0 {
		msg += " " + plural(n, "card was", "cards were") + " not changed"
		if why := q.Get("why"); why != "" {
			msg += ": " + why
		}
		msg += "."
	}
	return msg
}

// formFlag reads the flag a form chose: 0 (none) to 7.
func formFlag(r *http.Request) (int, error) {
	n, err := strconv.Atoi(r.PostFormValue("flag"))
	if err != nil || n < 0 || n >= len(contracts.CardFlags) {
		return 0, contracts.Errorf(contracts.KindInvalid, "Choose a flag (or no flag) from the list.")
	}
	return n, nil
}

// flagOptions are the flags a form offers, chosen selected: no flag, then
// Anki's seven colours.
func flagOptions(chosen int) []option {
	out := make([]option, len(contracts.CardFlags))
	for i := range contracts.CardFlags {
		label := "No flag"
		if i > 0 {
			label = flagName(i)
		}
		out[i] = option{Value: strconv.Itoa(i), Label: label, Selected: i == chosen}
	}
	return out
}

// flagName names flag n ("Red"); "" for none.
func flagName(n int) string {
	if n <= 0 || n >= len(contracts.CardFlags) {
		return ""
	}
	return strings.ToUpper(contracts.CardFlags[n][:1]) + contracts.CardFlags[n][1:]
}

// atoi reads a count from a query; 0 when it is not one.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1_000_000 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// cardInfo shows one card: its text, deck, tags and FSRS state.
func (p *DeckPages) cardInfo(w http.ResponseWriter, r *http.Request, v View) {
	c, err := p.svc.Cards.GetCard(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	d, err := p.svc.Decks.GetDeck(r.Context(), c.DeckID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	history, err := p.svc.Cards.CardHistory(r.Context(), c.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data := cardInfoData{Card: c, Deck: d, Front: p.html(c.Front), Back: p.html(c.Back)}
	for _, h := range history {
		data.History = append(data.History, historyRow{CardReview: h, Label: ratingLabel(h.Rating)})
	}
	v.Title, v.Nav, v.Data = "Card: "+p.content.Plain(c.Front, 40), "cards", data
	p.site.Render(w, r, "card", v)
}

// cardInfoData is a card's info page.
type cardInfoData struct {
	Card        contracts.Card
	Deck        contracts.Deck
	Front, Back template.HTML
	History     []historyRow // newest first
}

// historyRow is one entry of a card's review history as the page shows
// it: the rating's button label ("" for a manual change).
type historyRow struct {
	contracts.CardReview
	Label string
}

// Seconds is the time the answer took, "" when not recorded.
func (h historyRow) Seconds() string {
	if h.DurationMs <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f s", float64(h.DurationMs)/1000)
}
