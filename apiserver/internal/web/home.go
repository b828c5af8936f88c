package web

import (
	"net/http"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// maxHomeDecks bounds the decks the home page and the stats filter read.
const maxHomeDecks = 500

// maxSnapshotDecks bounds the decks the home page asks what is due today.
const maxSnapshotDecks = 100

// homeDeck is one deck of the home page with what it offers today.
type homeDeck struct {
	contracts.Deck
	DueNow   int // learning and review cards a session started now serves today (StudySnapshot.DueToday)
	NewToday int // new cards the daily limits still allow today
	// Filtered marks a filtered deck (custom study): its session serves
	// every card it holds, so DueNow and NewToday count them all.
	Filtered bool
}

// homePage is the home page's data.
type homePage struct {
	Decks     []homeDeck
	DueTotal  int
	NewTotal  int
	MCPURL    string
	Truncated bool
}

// allDecks reads the signed-in person's decks, up to maxHomeDecks.
func allDecks(r *http.Request, decks ports.DeckService) ([]contracts.Deck, error) {
	var out []contracts.Deck
	cursor := ""
	for len(out) < maxHomeDecks {
		page, err := decks.ListDecks(r.Context(), contracts.ListDecksArgs{Cursor: cursor, Limit: 100})
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return out, nil
}

// home is `/`: for a signed-in person their decks with what is due now;
// for everyone else what Takhtabush is, sign-in and the setup page.
func (p *AccountPages) home(w http.ResponseWriter, r *http.Request, v View) {
	hp := homePage{MCPURL: p.mcpURL}
	if v.User == nil {
		v.Data = hp
		p.site.Render(w, r, "home", v)
		return
	}
	v.Title, v.Nav = "Today", "home"
	decks, err := allDecks(r, p.svc.Decks)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if len(decks) > maxSnapshotDecks {
		decks, hp.Truncated = decks[:maxSnapshotDecks], true
	}
	filtered, err := filteredDeckIDs(r.Context(), p.svc.Filtered)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	// A deck's counts hold the decks below it (the deck tree): the day's
	// totals add up the decks below no other.
	names := make(map[string]bool, len(decks))
	for _, d := range decks {
		names[d.Name] = true
	}
	for _, d := range decks {
		// The snapshot counts a filtered deck as its session serves it:
		// every card it holds, outside the daily limits.
		snap, err := p.svc.Study.Snapshot(r.Context(), d.ID)
		if err != nil {
			p.site.Fail(w, r, v, err)
			return
		}
		hd := homeDeck{Deck: d, Filtered: filtered[d.ID], DueNow: snap.DueToday, NewToday: snap.NewToday}
		hp.Decks = append(hp.Decks, hd)
		if !belowAnother(d.Name, names) {
			hp.DueTotal += hd.DueNow
			hp.NewTotal += hd.NewToday
		}
	}
	v.Data = hp
	p.site.Render(w, r, "home", v)
}

// belowAnother reports whether a deck named name lies below one of the
// decks names holds (Parent::Child).
func belowAnother(name string, names map[string]bool) bool {
	for i := strings.LastIndex(name, contracts.DeckSeparator); i >= 0; i = strings.LastIndex(name, contracts.DeckSeparator) {
		if name = name[:i]; names[name] {
			return true
		}
	}
	return false
}
