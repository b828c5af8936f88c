package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/study"
)

// MarkedTag is the tag the study page's Mark puts on a card, as Anki's
// "Mark note" does; the card browser finds marked cards by it.
const MarkedTag = "marked"

// studyReturn is the study page an edit form was opened from (its next
// field or query), to go back to once saved; "" for none or for an
// address that is not a study page of this origin.
func studyReturn(r *http.Request) string {
	next := r.FormValue("next")
	if next == "" || SafeNext(next) != next || !strings.HasPrefix(next, "/study/") || strings.ContainsAny(next, "?#") {
		return ""
	}
	return next
}

// studySuspend suspends the session's current card (update_cards): the
// session goes on with the next card; the deck page and the card browser
// unsuspend it.
func (p *DeckPages) studySuspend(w http.ResponseWriter, r *http.Request, v View) {
	id, card := r.PathValue("id"), r.PostFormValue("cardId")
	on := true
	args := contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: card, Suspended: &on}}}
	if !p.studyCardChange(w, r, v, args) {
		return
	}
	SeeOther(w, r, study.StudyPath(id)+"?suspended=1")
}

// studyMark puts the marked tag on the session's current card, or takes
// it off when it is there (update_cards); the card stays current.
func (p *DeckPages) studyMark(w http.ResponseWriter, r *http.Request, v View) {
	id, card := r.PathValue("id"), r.PostFormValue("cardId")
	c, err := p.svc.Cards.GetCard(r.Context(), card)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	marked := hasTag(c.Tags, MarkedTag)
	tags := slices.DeleteFunc(slices.Clone(c.Tags), func(t string) bool { return strings.EqualFold(t, MarkedTag) })
	if !marked {
		tags = append(tags, MarkedTag)
	}
	args := contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: card, Tags: &tags}}}
	if !p.studyCardChange(w, r, v, args) {
		return
	}
	flag := "marked=1"
	if marked {
		flag = "marked=0"
	}
	q := flag
	if r.PostFormValue("shown") == "1" {
		q += "&show=1"
	}
	SeeOther(w, r, study.StudyPath(id)+"?"+q)
}

// studyFlag sets the session's current card's flag (update_cards), or
// takes it off with 0; the card stays current.
func (p *DeckPages) studyFlag(w http.ResponseWriter, r *http.Request, v View) {
	id, card := r.PathValue("id"), r.PostFormValue("cardId")
	flag, err := formFlag(r)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	args := contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: card, Flag: &flag}}}
	if !p.studyCardChange(w, r, v, args) {
		return
	}
	q := "flagged=" + strconv.Itoa(flag)
	if r.PostFormValue("shown") == "1" {
		q += "&show=1"
	}
	SeeOther(w, r, study.StudyPath(id)+"?"+q)
}

// studyCardChange applies one card's update from the study page and
// audits it; on a failure it shows the failure page and reports false.
func (p *DeckPages) studyCardChange(w http.ResponseWriter, r *http.Request, v View, args contracts.UpdateCardsArgs) bool {
	res, err := p.svc.Cards.UpdateCards(r.Context(), args)
	if err == nil && (len(res.Items) != 1 || res.Items[0].Status != contracts.OutcomeUpdated) {
		reason := "that card is gone; reload the page"
		if len(res.Items) == 1 && res.Items[0].Reason != "" {
			reason = res.Items[0].Reason
		}
		err = contracts.Errorf(contracts.KindConflict, "The card was not changed: %s", reason)
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return false
	}
	p.audited(r, contracts.ToolUpdateCards, args, args.Updates[0].ID)
	return true
}

// hasTag reports whether tags hold tag (tags compare without case).
func hasTag(tags []string, tag string) bool {
	return slices.ContainsFunc(tags, func(t string) bool { return strings.EqualFold(t, tag) })
}
