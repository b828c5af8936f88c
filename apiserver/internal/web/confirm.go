package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// confirmPage shows an agent's call waiting for the person's yes (issue
// 26 §3): what it would do, its counts and first changes, and the form
// that approves or declines it.
type confirmPage struct {
	ID, Tool, Summary string
	Confirmation      contracts.Confirmation
	Answered          bool
}

// confirmCall renders GET /confirm/{id}.
func (p *AccountPages) confirmCall(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Confirm an agent's call", "settings"
	c, err := p.svc.Confirm.Confirmation(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Data = confirmPage{ID: r.PathValue("id"), Tool: c.Tool, Summary: c.Preview.Summary(c.Tool), Confirmation: c,
		Answered: c.State != contracts.ConfirmPending}
	p.site.Render(w, r, "confirm", v)
}

// answerCall handles POST /confirm/{id}: answer=approve or decline.
func (p *AccountPages) answerCall(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Confirm an agent's call", "settings"
	approve := r.PostFormValue("answer") == "approve"
	if !approve && r.PostFormValue("answer") != "decline" {
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "answer approve or decline"))
		return
	}
	if _, err := p.svc.Confirm.Answer(r.Context(), r.PathValue("id"), approve); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/confirm/"+r.PathValue("id"))
}

// confirmFields are the agents page's threshold inputs, by rule.
var confirmFields = []struct {
	Rule         contracts.ConfirmRule
	Label, Units string
}{
	{contracts.ConfirmDeckCards, "Deleting a deck that holds at least", "cards"},
	{contracts.ConfirmDeleteCards, "Deleting at least", "cards"},
	{contracts.ConfirmUpdateCards, "Changing at least", "cards or notes"},
	{contracts.ConfirmRescheduleCards, "Rescheduling at least", "cards"},
	{contracts.ConfirmReplaceNotes, "Importing a package that changes at least", "of your notes"},
}

// confirmField is one threshold input of the agents page.
type confirmField struct {
	Rule         contracts.ConfirmRule
	Label, Units string
	Value        int
}

// confirmInputs are the account's thresholds as the page's inputs.
func confirmInputs(e contracts.ExposureSettings) []confirmField {
	th := e.ConfirmOrDefault()
	out := make([]confirmField, len(confirmFields))
	for i, f := range confirmFields {
		out[i] = confirmField{Rule: f.Rule, Label: f.Label, Units: f.Units, Value: th.For(f.Rule)}
	}
	return out
}

// parseThresholds reads the agents form's thresholds (confirm-<rule>).
func parseThresholds(r *http.Request) (*contracts.ConfirmThresholds, error) {
	var th contracts.ConfirmThresholds
	for _, f := range confirmFields {
		raw := strings.TrimSpace(r.PostFormValue("confirm-" + string(f.Rule)))
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, contracts.Errorf(contracts.KindInvalid, "each confirmation threshold must be a whole number (0: never ask)")
		}
		switch f.Rule {
		case contracts.ConfirmDeckCards:
			th.DeckCards = n
		case contracts.ConfirmDeleteCards:
			th.DeleteCards = n
		case contracts.ConfirmUpdateCards:
			th.UpdateCards = n
		case contracts.ConfirmRescheduleCards:
			th.RescheduleCards = n
		case contracts.ConfirmReplaceNotes:
			th.ReplaceNotes = n
		}
	}
	return &th, th.Valid()
}

// trustKey handles POST /settings/keys/{id}/trust: trusted=on marks the
// key trusted (its calls skip confirmation), anything else unmarks it.
func (p *AccountPages) trustKey(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "API keys", "settings"
	if err := p.svc.Keys.SetKeyTrusted(r.Context(), r.PathValue("id"), r.PostFormValue("trusted") == "on"); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/settings/keys?done=trusted")
}
