package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// noteField is one field of the note edit form: the note type's field name
// and the text the form shows (as stored, or as the person typed it).
type noteField struct{ Name, Value string }

// noteEditData is the note edit form, opened from one of the note's cards:
// the note's fields and tags change the note (update_notes) and so all its
// cards; the deck choice moves that one card (update_cards).
type noteEditData struct {
	Note   contracts.Note
	Card   contracts.Card
	Cloze  bool // the note's type makes its cards from {{c1::…}} deletions
	Fields []noteField
	Tags   string
	DeckID string // the deck the form has chosen
	Decks  []contracts.Deck
	Next   string // the study page the form was opened from (see editData)
}

// noteEditForm loads what the edit form of card c, made from note n, shows:
// the note as stored and the decks to move the card to.
func (p *DeckPages) noteEditForm(ctx context.Context, n contracts.Note, c contracts.Card) (noteEditData, error) {
	decks, err := p.moveTargets(ctx, c.DeckID)
	if err != nil {
		return noteEditData{}, err
	}
	types, err := p.svc.Notes.NoteTypes(ctx)
	if err != nil {
		return noteEditData{}, err
	}
	data := noteEditData{Note: n, Card: c, Tags: strings.Join(n.Tags, " "), DeckID: c.DeckID, Decks: decks}
	for _, t := range types {
		if t.ID == n.NoteTypeID && t.Name == n.NoteType {
			data.Cloze = t.Cloze
		}
	}
	for _, name := range n.FieldNames {
		data.Fields = append(data.Fields, noteField{Name: name, Value: n.Fields[name]})
	}
	return data, nil
}

// editNote shows the note edit form of card c, made from a note.
func (p *DeckPages) editNote(w http.ResponseWriter, r *http.Request, v View, c contracts.Card) {
	n, err := p.svc.Notes.GetNote(r.Context(), c.NoteID)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data, err := p.noteEditForm(r.Context(), n, c)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data.Next = studyReturn(r)
	v.Title, v.Nav, v.Data = "Edit note", "decks", data
	p.site.Render(w, r, "note-edit", v)
}

// noteAndCard loads the note a form posts to and the card it was opened
// from; a card of another note is not found, like another user's.
func (p *DeckPages) noteAndCard(r *http.Request) (contracts.Note, contracts.Card, error) {
	n, err := p.svc.Notes.GetNote(r.Context(), r.PathValue("id"))
	if err != nil {
		return n, contracts.Card{}, err
	}
	c, err := p.svc.Cards.GetCard(r.Context(), r.PostFormValue("cardId"))
	if err == nil && c.NoteID != n.ID {
		err = contracts.Errorf(contracts.KindNotFound, "card %q is not a card of note %q", c.ID, n.ID)
	}
	return n, c, err
}

// saveNote changes a note's fields and tags with update_notes, whose
// re-made cards keep their scheduling, then moves the card the form was
// opened from when another deck was chosen, and goes back to its deck. A
// refused change shows the form again with the reason and what was typed.
func (p *DeckPages) saveNote(w http.ResponseWriter, r *http.Request, v View) {
	n, c, err := p.noteAndCard(r)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	tags := strings.Fields(r.PostFormValue("tags"))
	patch := contracts.NotePatch{ID: n.ID, Fields: map[string]string{}, Tags: &tags}
	for i, name := range n.FieldNames {
		patch.Fields[name] = r.PostFormValue("field-" + strconv.Itoa(i))
	}
	res, err := p.svc.Notes.UpdateNotes(r.Context(), contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{patch}})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	it := res.Items[0]
	switch it.Status {
	case contracts.OutcomeUpdated:
	case contracts.OutcomeNotFound:
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindNotFound, "The note was not saved: %s", it.Reason))
		return
	default:
		p.refuseNote(w, r, v, n, c, it)
		return
	}
	p.audited(r, contracts.ToolUpdateNotes, map[string]any{"noteId": n.ID, "fields": n.FieldNames, "tags": len(tags)}, it.ID)
	flash := "note-saved"
	if it.Reason != "" {
		flash = "note-saved-stale"
	}
	if deck := r.PostFormValue("deckId"); deck != "" && deck != c.DeckID {
		p.patch(w, r, v, contracts.CardPatch{ID: c.ID, DeckID: &deck}, flash, nil)
		return
	}
	if next := studyReturn(r); next != "" {
		SeeOther(w, r, next+"?edited=1")
		return
	}
	SeeOther(w, r, "/decks/"+c.DeckID+"?flash="+flash)
}

// refuseNote shows the note edit form again, as typed, with the reason
// update_notes gave for not changing the note: 400 for invalid input, 409
// when a re-made card would duplicate another.
func (p *DeckPages) refuseNote(w http.ResponseWriter, r *http.Request, v View, n contracts.Note, c contracts.Card, it contracts.ItemOutcome) {
	data, err := p.noteEditForm(r.Context(), n, c)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	data.Next = studyReturn(r)
	for i := range data.Fields {
		data.Fields[i].Value = r.PostFormValue("field-" + strconv.Itoa(i))
	}
	data.Tags, data.DeckID = r.PostFormValue("tags"), r.PostFormValue("deckId")
	kind := contracts.KindInvalid
	if it.Status == contracts.OutcomeConflict {
		kind = contracts.KindConflict
	}
	v.Title, v.Nav, v.Data = "Edit note", "decks", data
	v.Error = "The note was not saved: " + it.Reason
	p.site.R.Render(w, r, httperr.Status(kind), "note-edit", v)
}

// editNoteByID sends a link to a note (the audit trail's) to the edit form
// opened from its first card.
func (p *DeckPages) editNoteByID(w http.ResponseWriter, r *http.Request, v View) {
	n, err := p.svc.Notes.GetNote(r.Context(), r.PathValue("id"))
	if err == nil && len(n.Cards) == 0 {
		err = contracts.Errorf(contracts.KindNotFound, "The note has no cards left to open it from.")
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	SeeOther(w, r, "/cards/"+url.PathEscape(n.Cards[0].ID)+"/edit")
}
