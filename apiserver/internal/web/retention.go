package web

import (
	"net/http"

	"github.com/takhtabush/takhtabush/contracts"
)

// retentionPage is the desired-retention advisor of a deck.
type retentionPage struct {
	Deck     contracts.Deck
	Workload contracts.RetentionWorkload
	Peak     float64 // the most reviews a day of any point, for the bars
}

// Bar is a point's reviews a day as a percentage of the peak.
func (p retentionPage) Bar(reviews float64) int {
	if p.Peak <= 0 {
		return 0
	}
	return int(100 * reviews / p.Peak)
}

// Percent shows a retention as a percentage.
func (retentionPage) Percent(r float64) int { return int(r*100 + 0.5) }

func (p *DeckPages) retention(w http.ResponseWriter, r *http.Request, v View) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	wl, err := p.svc.Stats.RetentionWorkload(r.Context(), d.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	page := retentionPage{Deck: d, Workload: wl}
	for _, pt := range wl.Points {
		page.Peak = max(page.Peak, pt.ReviewsPerDay)
	}
	v.Title, v.Nav, v.Data = "Desired retention for "+d.Name, "decks", page
	p.site.Render(w, r, "retention", v)
}
