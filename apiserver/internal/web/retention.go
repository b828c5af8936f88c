package web

import (
	"math"
	"net/http"
	"strconv"

	"github.com/takhtabush/takhtabush/contracts"
)

// retentionPage is the desired-retention advisor of a deck: the same
// advice get_retention_advice gives (StatsService.RetentionAdvice).
type retentionPage struct {
	Deck   contracts.Deck
	Advice contracts.RetentionAdvice
	Peak   float64 // the most reviews a day of any point, for the bars
}

// Bar is a point's reviews a day as a percentage of the peak.
func (p retentionPage) Bar(reviews float64) int {
	if p.Peak <= 0 {
		return 0
	}
	return int(100 * reviews / p.Peak)
}

// Percent shows a retention as a percentage (to a tenth when it has one:
// 87.5%).
func (retentionPage) Percent(r float64) string {
	return strconv.FormatFloat(math.Round(r*1000)/10, 'f', -1, 64)
}

// Below reports whether the current retention is under the minimum
// recommended one.
func (p retentionPage) Below() bool {
	return p.Advice.Current < p.Advice.Recommended-1e-9
}

func (p *DeckPages) retention(w http.ResponseWriter, r *http.Request, v View) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	adv, err := p.svc.Stats.RetentionAdvice(r.Context(), contracts.GetRetentionAdviceArgs{DeckID: d.ID})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	page := retentionPage{Deck: d, Advice: adv}
	for _, pt := range adv.Points {
		page.Peak = max(page.Peak, pt.ReviewsPerDay)
	}
	v.Title, v.Nav, v.Data = "Desired retention for "+d.Name, "decks", page
	p.site.Render(w, r, "retention", v)
}
