package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// Studying offline (issue 31 §14): the study page loads the cards it will
// show next (GET /study/{id}/upcoming); with no network it shows them
// from there and keeps each rating on the device with the time it was
// given; back online it sends them in order (POST /study/{id}/queued),
// each at its original time, and tells the person which were not applied.

// upcomingCard is a card the study page may show offline, rendered as the
// page renders the current one.
type upcomingCard struct {
	CardID   string `json:"cardId"`
	Position int    `json:"position"`
	Front    string `json:"front"`
	Back     string `json:"back"`
	TypeIn   bool   `json:"typeIn"`
}

// upcoming answers the study page's script with the session's next cards,
// the current one first (JSON {cards: [...]}).
func (p *DeckPages) upcoming(w http.ResponseWriter, r *http.Request, _ View) {
	cards, err := p.svc.Study.Upcoming(r.Context(), r.PathValue("id"), contracts.MaxUpcomingCards)
	if err != nil {
		p.studyJSONError(w, r, err)
		return
	}
	out := make([]upcomingCard, len(cards))
	for i, c := range cards {
		front := string(p.html(c.Front))
		out[i] = upcomingCard{CardID: c.CardID, Position: c.Position, Front: front, Back: string(p.html(c.Back)),
			TypeIn: strings.Contains(front, `<span class="`+contracts.TypeInClass+`">`)}
	}
	body, _ := json.Marshal(map[string]any{"cards": out})
	w.Header().Set("Cache-Control", "no-store")
	httperr.WriteJSON(w, http.StatusOK, body)
}

// queuedReview applies a rating given offline (the form fields of a
// rating plus agoMs: how long ago it was given, by the device's clock, so
// the two clocks need not agree) at the time it was given. JSON answer:
// {status: "applied" | "replayed"} (a resend), or an error with its kind
// (conflict: the card was reviewed since; not_found: the session is
// gone), which the page reports and drops from its queue.
func (p *DeckPages) queuedReview(w http.ResponseWriter, r *http.Request, _ View) {
	id := r.PathValue("id")
	pos, perr := strconv.Atoi(r.PostFormValue("position"))
	ago, aerr := strconv.ParseInt(r.PostFormValue("agoMs"), 10, 64)
	if perr != nil || aerr != nil || ago < 0 {
		p.studyJSONError(w, r, contracts.Errorf(contracts.KindInvalid, "send the rating's position and agoMs (milliseconds since it was given)"))
		return
	}
	ms, _ := strconv.Atoi(r.PostFormValue("durationMs"))
	args := contracts.SubmitReviewArgs{SessionID: id, CardID: r.PostFormValue("cardId"), Position: &pos,
		Rating: contracts.Rating(r.PostFormValue("rating")), DurationMs: min(max(ms, 0), 3_600_000)}
	age := time.Duration(min(ago, int64(contracts.MaxQueuedReviewAge/time.Millisecond)+1)) * time.Millisecond
	res, err := p.svc.Study.SubmitQueuedReview(r.Context(), args, age)
	if contracts.IsKind(err, contracts.KindNotFound) {
		err = contracts.Errorf(contracts.KindNotFound, "its study session has ended (a session lasts a day), so the rating is not applied")
	}
	if err != nil {
		p.studyJSONError(w, r, err)
		return
	}
	status := "replayed"
	if !res.Replayed {
		status = "applied"
		p.audited(r, contracts.ToolSubmitReview, map[string]any{"sessionId": id, "cardId": res.CardID, "position": pos, "rating": res.Rating,
			"agoMs": ago}, id, res.CardID)
	}
	body, _ := json.Marshal(map[string]any{"status": status, "cardId": res.CardID, "intervalHuman": res.IntervalHuman})
	httperr.WriteJSON(w, http.StatusOK, body)
}

// studyJSONError answers a study script's request with the error's
// status, kind and public message.
func (p *DeckPages) studyJSONError(w http.ResponseWriter, r *http.Request, err error) {
	status, kind, msg := httperr.Page(r.Context(), p.site.log, w, err)
	body, _ := json.Marshal(map[string]string{"kind": string(kind), "error": msg})
	httperr.WriteJSON(w, status, body)
}
