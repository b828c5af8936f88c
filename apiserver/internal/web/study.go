package web

import (
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/study"
)

// ratingButton is one of the four answers.
type ratingButton struct {
	Key    int
	Rating contracts.Rating
	Label  string
	Next   string // when the card comes back after this rating, e.g. "10m"; empty when unknown
}

var ratingButtons = []ratingButton{
	{Key: 1, Rating: contracts.RatingAgain, Label: "Again"}, {Key: 2, Rating: contracts.RatingHard, Label: "Hard"},
	{Key: 3, Rating: contracts.RatingGood, Label: "Good"}, {Key: 4, Rating: contracts.RatingEasy, Label: "Easy"},
}

type studyData struct {
	Session contracts.StudySession
	Deck    contracts.Deck
	Front   template.HTML
	Back    template.HTML
	Shown   bool // the answer is shown without JavaScript (?show=1)
	// Styled: the current card's note type has CSS, served by
	// /cards/{id}/style.css for the container of class cardStyleScope.
	Styled bool
	// TypeIn: the question asks to type the answer (its front holds the
	// contracts.TypeInClass mark); the page shows a typing box.
	TypeIn  bool
	Buttons []ratingButton
	Percent int
	Total   int
	Last    string // what the session's last rating did, e.g. "good: next in 3d"
	// Studied lists the ratings given in the session (shown at its end);
	// Undo is the last of them when it can be undone.
	Studied []studiedRow
	Cards   int // distinct cards among Studied
	Undo    *studiedRow
	// Marked: the current card carries MarkedTag; Audio: its text plays
	// sound (the page offers Replay audio).
	Marked, Audio bool
	// Flag is the current card's flag (0 none), Flags the flag menu's
	// choices.
	Flag  int
	Flags []option
}

// studiedRow is one rating of the session as the page lists it.
type studiedRow struct {
	contracts.StudiedCard
	Label string // the rating's button label
	Text  string // the front as short plain text
}

// cardStyleScope is the class of the study view's card container, to
// which a note type's CSS is confined.
const cardStyleScope = contracts.CardStyleClass

// cardStyle serves the CSS of a card's note type as a stylesheet (the
// pages' Content-Security-Policy allows our own stylesheets, never inline
// styles), confined to the card container and stripped of anything that
// loads by the domain (notes.ScopeCSS); empty for a card without one.
func (p *DeckPages) cardStyle(w http.ResponseWriter, r *http.Request, v View) {
	css, err := p.svc.Notes.CardStyle(r.Context(), r.PathValue("id"), "."+cardStyleScope)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "private, max-age=60")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, css)
}

func (p *DeckPages) study(w http.ResponseWriter, r *http.Request, v View) {
	ctx := r.Context()
	s, err := p.svc.Study.GetSession(ctx, r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	d, err := p.svc.Decks.GetDeck(ctx, s.DeckID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data := studyData{Session: s, Deck: d, Shown: r.URL.Query().Get("show") == "1", Buttons: ratingButtons, Total: s.Reviewed + s.Remaining}
	if data.Total > 0 {
		data.Percent = s.Reviewed * 100 / data.Total
	}
	if r.URL.Query().Get("conflict") == "1" {
		v.Error = "That card was rated already (in another tab, or by your agent); here is where the session is now."
	}
	if s.Current != nil {
		data.Front, data.Back = p.html(s.Current.Front), p.html(s.Current.Back)
		data.TypeIn = strings.Contains(string(data.Front), `<span class="`+contracts.TypeInClass+`">`)
		data.Buttons = p.buttons(r, s)
		data.Marked = hasTag(s.Current.Tags, MarkedTag)
		if c, err := p.svc.Cards.GetCard(ctx, s.Current.CardID); err == nil {
			data.Flag = c.Flag
		}
		data.Flags = flagOptions(data.Flag)
		data.Audio = strings.Contains(string(data.Front)+string(data.Back), "<audio")
		// A card whose style cannot be read is still studied, unstyled.
		css, err := p.svc.Notes.CardStyle(ctx, s.Current.CardID, "."+cardStyleScope)
		data.Styled = err == nil && css != ""
	}
	studied, err := p.svc.Study.Studied(ctx, s.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	seen := map[string]bool{}
	for _, st := range studied {
		if !seen[st.CardID] {
			seen[st.CardID] = true
			data.Cards++
		}
		data.Studied = append(data.Studied, studiedRow{StudiedCard: st, Label: ratingLabel(st.Rating), Text: p.content.Plain(st.Front, 120)})
	}
	if n := len(data.Studied); n > 0 && data.Studied[n-1].Undoable {
		data.Undo = &data.Studied[n-1]
	}
	// Right after a rating (?rated=1), say what it did: from the session's
	// own last rating, never from the query's text.
	if n := len(data.Studied); n > 0 && r.URL.Query().Has("rated") {
		last := data.Studied[n-1]
		data.Last = string(last.Rating) + ": next in " + last.IntervalHuman
	}
	switch q := r.URL.Query(); {
	case q.Get("undone") == "1":
		data.Last, v.Flash = "", "Rating undone: the card is waiting again."
	case q.Get("buried") == "1":
		v.Flash = "Card buried: it comes back tomorrow."
	case q.Get("suspended") == "1":
		v.Flash = "Card suspended: it is not studied until you unsuspend it (deck page or Cards)."
	case q.Get("marked") == "1":
		v.Flash = "Card marked: Cards finds it by the tag " + MarkedTag + "."
	case q.Get("marked") == "0":
		v.Flash = "Mark taken off."
	case q.Has("flagged"):
		v.Flash = "Flag taken off."
		if name := flagName(atoi(q.Get("flagged"))); name != "" {
			v.Flash = "Card flagged " + strings.ToLower(name) + ": Cards finds it with flag:" + q.Get("flagged") + "."
		}
	case q.Get("edited") == "1":
		v.Flash = "Card saved; here it is as it studies now."
	case q.Get("leech") == "1":
		v.Flash = "That card has lapsed " + strconv.Itoa(d.Settings.WithDefaults().LeechThreshold) + " times or more: it is a leech, and its note is tagged leech."
		if d.Settings.WithDefaults().LeechAction == contracts.LeechActionSuspend {
			v.Flash += " It is suspended; edit it, then unsuspend it from the deck page."
		}
	}
	v.Title, v.Nav, v.Data = "Study "+d.Name, "decks", data
	v.Focus = !s.Done
	if s.Done {
		v.Title = "Done: " + d.Name
	}
	w.Header().Set("Cache-Control", "no-store")
	p.site.Render(w, r, "study", v)
}

func (p *DeckPages) review(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	pos, err := strconv.Atoi(r.PostFormValue("position"))
	if err != nil {
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "the form lost the card's position; reload the page"))
		return
	}
	ms, _ := strconv.Atoi(r.PostFormValue("durationMs"))
	res, err := p.svc.Study.SubmitReview(r.Context(), contracts.SubmitReviewArgs{
		SessionID: id, CardID: r.PostFormValue("cardId"), Position: &pos,
		Rating: contracts.Rating(r.PostFormValue("rating")), DurationMs: max(ms, 0),
	})
	if err == nil && !res.Replayed {
		p.audited(r, contracts.ToolSubmitReview, map[string]any{"sessionId": id, "cardId": res.CardID, "position": pos, "rating": res.Rating}, id, res.CardID)
	}
	if err != nil {
		if contracts.IsKind(err, contracts.KindConflict) {
			// Already rated (a double submit, or the agent was faster): show
			// where the session is now.
			SeeOther(w, r, study.StudyPath(id)+"?conflict=1")
			return
		}
		p.site.Fail(w, r, v, err)
		return
	}
	leech := ""
	if res.Leech {
		leech = "&leech=1"
	}
	SeeOther(w, r, study.StudyPath(id)+"?rated=1"+leech)
}

// bury buries the session's current card until tomorrow (bury_cards).
func (p *DeckPages) bury(w http.ResponseWriter, r *http.Request, v View) {
	id, card := r.PathValue("id"), r.PostFormValue("cardId")
	res, err := p.svc.Study.BuryCards(r.Context(), contracts.BuryCardsArgs{CardIDs: []string{card}})
	if err == nil && (len(res.Items) != 1 || res.Items[0].Status != contracts.OutcomeUpdated) {
		err = contracts.Errorf(contracts.KindNotFound, "that card is gone; reload the page")
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolBuryCards, map[string]any{"cardIds": []string{card}}, card)
	SeeOther(w, r, study.StudyPath(id)+"?buried=1")
}

// unbury brings a deck's buried cards back today (unbury).
func (p *DeckPages) unbury(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	if _, err := p.svc.Study.Unbury(r.Context(), contracts.UnburyArgs{DeckID: id}); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolUnbury, map[string]any{"deckId": id}, id)
	SeeOther(w, r, "/decks/"+id+"?flash=unburied")
}

// undo takes back the session's last rating and shows the card again.
func (p *DeckPages) undo(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	if _, err := p.svc.Study.UndoLastReview(r.Context(), id); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, study.StudyPath(id)+"?undone=1")
}

// ratingLabel is a rating's button label ("Again" for again).
func ratingLabel(r contracts.Rating) string {
	for _, b := range ratingButtons {
		if b.Rating == r {
			return b.Label
		}
	}
	return string(r)
}

// buttons are the rating buttons for the session's current card, each
// with the interval its rating would give now. A preview that fails (the
// card was just rated elsewhere) leaves the intervals out; rating still
// works and answers the conflict itself.
func (p *DeckPages) buttons(r *http.Request, s contracts.StudySession) []ratingButton {
	prev, err := p.svc.Study.PreviewRatings(r.Context(), s.ID, s.Current.CardID)
	if err != nil {
		return ratingButtons
	}
	next := map[contracts.Rating]string{}
	for _, pr := range prev {
		next[pr.Rating] = pr.IntervalHuman
	}
	out := make([]ratingButton, len(ratingButtons))
	for i, b := range ratingButtons {
		b.Next = next[b.Rating]
		out[i] = b
	}
	return out
}
