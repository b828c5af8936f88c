package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/study"
)

type settingsForm struct {
	Deck    contracts.Deck
	Presets []contracts.Preset
	Preset  contracts.Preset // the deck's
	// Job is the optimisation the page started (?job=), with its Report
	// once it succeeded; nil when none.
	Job    *contracts.Job
	Report *contracts.OptimizeReport
	// Filtered is set for a filtered deck (custom study), whose sessions
	// show every card outside the limits and reschedule by the cards' home
	// decks' presets: the page says so.
	Filtered bool
}

// easyDay is one weekday's field of the easy days.
type easyDay struct{ Field, Day, Share string }

// weekdays are the easy days' weekdays, Monday first.
var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// EasyDays are the preset's easy days as the form edits them (1 each
// without).
func (f settingsForm) EasyDays() []easyDay {
	out := make([]easyDay, 7)
	for i, d := range weekdays {
		share := 1.0
		if len(f.Deck.Settings.EasyDays) == 7 {
			share = f.Deck.Settings.EasyDays[i]
		}
		out[i] = easyDay{Field: "easy" + strconv.Itoa(i), Day: d, Share: strconv.FormatFloat(share, 'f', -1, 64)}
	}
	return out
}

// formEasyDays reads the easy days' fields: nil when the form has none
// (an empty field is a normal day).
func formEasyDays(r *http.Request) ([]float64, error) {
	out, any := make([]float64, 7), false
	for i, d := range weekdays {
		v := strings.TrimSpace(r.PostFormValue("easy" + strconv.Itoa(i)))
		if v == "" {
			out[i] = 1
			continue
		}
		any = true
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, contracts.Errorf(contracts.KindInvalid, "easyDays: %s's share must be a number from 0 to 1, got %q", d, v)
		}
		out[i] = f
	}
	if !any {
		return nil, nil
	}
	return out, nil
}

// Steps and Weights show the preset's lists as the form edits them.
func (settingsForm) Steps(v []float64) string   { return numbers(v) }
func (settingsForm) Weights(v []float64) string { return numbers(v) }

func (p *DeckPages) settings(w http.ResponseWriter, r *http.Request, v View) {
	p.renderSettings(w, r, v, http.StatusOK)
}

// renderSettings shows a deck's settings form with status, holding v.Form
// when a refused one comes back.
func (p *DeckPages) renderSettings(w http.ResponseWriter, r *http.Request, v View, status int) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	presets, err := p.svc.Decks.ListPresets(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	form := settingsForm{Deck: d, Presets: presets}
	for _, ps := range presets {
		if ps.ID == d.Settings.PresetID {
			form.Preset = ps
		}
	}
	f, err := p.filteredDeckOf(r.Context(), d.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	form.Filtered = f != nil
	if err := p.optimizeJob(r, &form); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Flash, v.Data = "Settings of "+d.Name, "decks", deckFlash(r), form
	p.site.R.Render(w, r, status, "deck-settings", v)
}

// numbers writes a list of numbers separated by spaces.
func numbers(v []float64) string {
	out := make([]string, len(v))
	for i, f := range v {
		out[i] = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strings.Join(out, " ")
}

// formNumbers reads an optional list of numbers separated by spaces or
// commas.
func formNumbers(r *http.Request, name string) ([]float64, error) {
	fields := strings.FieldsFunc(r.PostFormValue(name), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' })
	if len(fields) == 0 {
		return nil, nil
	}
	out := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, contracts.Errorf(contracts.KindInvalid, "%s must be numbers separated by spaces; %q is not a number", name, f)
		}
		out[i] = v
	}
	return out, nil
}

// presetFields reads the preset's fields of the settings form.
func presetFields(r *http.Request, args *contracts.UpdateDeckArgs) (err error) {
	if args.DesiredRetention, err = formFloat(r, "desiredRetention"); err != nil {
		return err
	}
	if args.MaximumIntervalDays, err = formInt(r, "maximumIntervalDays"); err != nil {
		return err
	}
	if args.LearningSteps, err = formNumbers(r, "learningSteps"); err != nil {
		return err
	}
	if args.RelearningSteps, err = formNumbers(r, "relearningSteps"); err != nil {
		return err
	}
	if args.Weights, err = formNumbers(r, "weights"); err != nil {
		return err
	}
	on := r.PostFormValue("rescheduleOnChange") != ""
	args.RescheduleOnChange = &on
	args.EasyDays, err = formEasyDays(r)
	return err
}

func (p *DeckPages) saveSettings(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	args := contracts.UpdateDeckArgs{DeckID: id}
	name, desc := r.PostFormValue("name"), r.PostFormValue("description")
	args.Name, args.Description = &name, &desc
	var err error
	if args.NewCardsPerDay, err = formInt(r, "newCardsPerDay"); err == nil {
		args.ReviewsPerDay, err = formInt(r, "reviewsPerDay")
	}
	// Choosing another preset takes its fields as they are; the fields
	// shown on the form are the old preset's and are not sent.
	if chosen := r.PostFormValue("presetId"); chosen != "" && chosen != r.PostFormValue("currentPresetId") {
		args.PresetID = chosen
	} else if err == nil {
		err = presetFields(r, &args)
	}
	if err == nil {
		_, err = p.svc.Decks.UpdateDeck(r.Context(), args)
	}
	if err != nil {
		if status, ok := refused(r, &v, err, "name", "description", "newCardsPerDay", "reviewsPerDay", "desiredRetention",
			"maximumIntervalDays", "learningSteps", "relearningSteps", "weights", "easyDays"); ok {
			p.renderSettings(w, r, v, status)
			return
		}
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolUpdateDeck, args, id)
	SeeOther(w, r, "/decks/"+id+"/settings?flash=saved")
}

// deleteDeckPage is the confirmation of a deck's deletion; FilteredDeck
// is set for a filtered deck, whose cards go home rather than to the trash.
type deleteDeckPage struct {
	contracts.Deck
	FilteredDeck *contracts.FilteredDeck
}

func (p *DeckPages) confirmDelete(w http.ResponseWriter, r *http.Request, v View) {
	d, err := p.svc.Decks.GetDeck(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	f, err := p.filteredDeckOf(r.Context(), d.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Narrow, v.Data = "Delete "+d.Name+"?", "decks", true, deleteDeckPage{Deck: d, FilteredDeck: f}
	p.site.Render(w, r, "deck-delete", v)
}

func (p *DeckPages) deleteDeck(w http.ResponseWriter, r *http.Request, v View) {
	id := r.PathValue("id")
	res, err := p.svc.Decks.DeleteDeck(r.Context(), contracts.DeleteDeckArgs{DeckID: id})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolDeleteDeck, map[string]any{"deckId": id, "cardsDeleted": res.CardsDeleted}, id)
	SeeOther(w, r, "/decks?flash=deleted")
}

func (p *DeckPages) startStudy(w http.ResponseWriter, r *http.Request, v View) {
	args := contracts.StartStudySessionArgs{DeckID: r.PathValue("id"), Cram: r.PostFormValue("cram") == "1"}
	ahead, err := formInt(r, "aheadDays")
	if ahead != nil {
		args.ReviewAheadDays = *ahead
	}
	var s contracts.StudySession
	if err == nil {
		s, err = p.svc.Study.StartSession(r.Context(), args)
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolStartStudySession, args, s.ID, s.DeckID)
	SeeOther(w, r, study.StudyPath(s.ID))
}

// exportDeck makes a download link of the deck's .apkg and sends the
// browser to it: the file downloads and the deck page stays.
func (p *DeckPages) exportDeck(w http.ResponseWriter, r *http.Request, v View) {
	scheduling := r.PostFormValue("scheduling") != "off"
	id := r.PathValue("id")
	link, err := p.svc.Export.ExportDeck(r.Context(), contracts.ExportDeckArgs{DeckID: id, IncludeScheduling: &scheduling})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	// The one audited read: it hands the deck out.
	p.audited(r, contracts.ToolExportDeck, map[string]any{"deckId": id, "includeScheduling": scheduling}, id)
	u, err := url.Parse(link.DownloadURL)
	if err != nil {
		p.site.Fail(w, r, v, contracts.Internal(err))
		return
	}
	SeeOther(w, r, u.Path)
}

type editData struct {
	Card  contracts.Card
	Decks []contracts.Deck
	// Next is the study page the form was opened from, gone back to once
	// saved ("": the card's deck).
	Next string
}

// editCard shows a card's edit form: a plain card's front, back and tags,
// or, for a card made from a note, the note's fields and tags (editNote).
func (p *DeckPages) editCard(w http.ResponseWriter, r *http.Request, v View) {
	p.renderEdit(w, r, v, http.StatusOK)
}

// renderEdit shows a card's edit form with status, holding v.Form when a
// refused one comes back.
func (p *DeckPages) renderEdit(w http.ResponseWriter, r *http.Request, v View, status int) {
	c, err := p.svc.Cards.GetCard(r.Context(), r.PathValue("id"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	if c.NoteID != "" {
		p.editNote(w, r, v, c)
		return
	}
	decks, err := p.moveTargets(r.Context(), c.DeckID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Data = "Edit card", "decks", editData{Card: c, Decks: decks, Next: studyReturn(r)}
	p.site.R.Render(w, r, status, "card-edit", v)
}

// moveTargets are the decks an edit form offers to move a card to: the
// first hundred, and the card's own deck (current) when it is not among
// them, so that saving the form never moves the card by itself.
func (p *DeckPages) moveTargets(ctx context.Context, current string) ([]contracts.Deck, error) {
	page, err := p.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Limit: 100})
	if err != nil || slices.ContainsFunc(page.Items, func(d contracts.Deck) bool { return d.ID == current }) {
		return page.Items, err
	}
	d, err := p.svc.Decks.GetDeck(ctx, current)
	return append(page.Items, d), err
}

func (p *DeckPages) saveCard(w http.ResponseWriter, r *http.Request, v View) {
	front, back, deck := r.PostFormValue("front"), r.PostFormValue("back"), r.PostFormValue("deckId")
	tags := strings.Fields(r.PostFormValue("tags"))
	patch := contracts.CardPatch{ID: r.PathValue("id"), Front: &front, Back: &back, Tags: &tags}
	if deck != "" {
		patch.DeckID = &deck
	}
	p.patch(w, r, v, patch, "saved", func(status int, v View) { p.renderEdit(w, r, v, status) })
}

func (p *DeckPages) suspendCard(w http.ResponseWriter, r *http.Request, v View) {
	on := r.PostFormValue("suspended") == "true"
	msg := "unsuspended"
	if on {
		msg = "suspended"
	}
	p.patch(w, r, v, contracts.CardPatch{ID: r.PathValue("id"), Suspended: &on}, msg, nil)
}

// patch applies one card change and goes back to the card's deck. A
// refused change goes to again (when not nil): the form shown again with
// the input as typed (v.Form) and the status to show it with.
func (p *DeckPages) patch(w http.ResponseWriter, r *http.Request, v View, patch contracts.CardPatch, msg string, again func(status int, v View)) {
	res, err := p.svc.Cards.UpdateCards(r.Context(), contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{patch}})
	if err == nil && len(res.Items) == 1 && res.Items[0].Status == contracts.OutcomeInvalid {
		err = contracts.Errorf(contracts.KindInvalid, "The card was not changed: %s", res.Items[0].Reason)
	}
	if err != nil {
		if status, ok := refused(r, &v, err, "front", "back", "tags", "deckId"); ok && again != nil {
			again(status, v)
			return
		}
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolUpdateCards, map[string]any{"updates": []contracts.CardPatch{patch}}, patch.ID)
	if next := studyReturn(r); next != "" {
		SeeOther(w, r, next+"?edited=1")
		return
	}
	c, err := p.svc.Cards.GetCard(r.Context(), patch.ID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/decks/"+c.DeckID+"?flash="+msg)
}

func (p *DeckPages) deleteCard(w http.ResponseWriter, r *http.Request, v View) {
	c, err := p.svc.Cards.GetCard(r.Context(), r.PathValue("id"))
	if err == nil {
		_, err = p.svc.Cards.DeleteCards(r.Context(), contracts.DeleteCardsArgs{CardIDs: []string{c.ID}})
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolDeleteCards, contracts.DeleteCardsArgs{CardIDs: []string{c.ID}}, c.ID)
	SeeOther(w, r, "/decks/"+c.DeckID+"?flash=deleted")
}

// formInt reads an optional whole number from a form field.
func formInt(r *http.Request, name string) (*int, error) {
	s := strings.TrimSpace(r.PostFormValue(name))
	if s == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, contracts.Errorf(contracts.KindInvalid, "%s must be a whole number", name)
	}
	return &n, nil
}

// formFloat reads an optional number from a form field.
func formFloat(r *http.Request, name string) (*float64, error) {
	s := strings.TrimSpace(r.PostFormValue(name))
	if s == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, contracts.Errorf(contracts.KindInvalid, "%s must be a number", name)
	}
	return &f, nil
}
