package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// editorUpload answers the card editor's script with an upload intent for
// an image or a sound pasted, dropped or picked into a card's field (JSON
// {contentType, bytes, filename}; the CSRF token in the X-CSRF-Token
// header). The file then goes to the media service as any upload does:
// the account's quota, the type sniffed from its bytes. The script puts
// the reference (media:ID) into the field.
func (p *DeckPages) editorUpload(w http.ResponseWriter, r *http.Request, v View) {
	var req struct {
		ContentType string `json:"contentType"`
		Bytes       int64  `json:"bytes"`
		Filename    string `json:"filename"`
	}
	in, err := contracts.MediaUploadIntent{}, json.NewDecoder(r.Body).Decode(&req)
	switch {
	case err != nil:
		err = contracts.Errorf(contracts.KindInvalid, "send {contentType, bytes, filename} as JSON")
	case !slices.Contains(contracts.AllowedMediaTypes, req.ContentType):
		err = contracts.Errorf(contracts.KindInvalid, "a card takes images (PNG, JPEG, GIF, WebP) and sounds (MP3, Ogg, WAV, M4A); this file is %q", req.ContentType)
	default:
		in, err = p.svc.Media.RequestUpload(r.Context(), contracts.RequestMediaUploadArgs{ContentType: req.ContentType, Bytes: req.Bytes, Filename: req.Filename})
	}
	if err != nil {
		status, kind, msg := httperr.Page(r.Context(), p.site.log, w, err)
		body, _ := json.Marshal(map[string]string{"kind": string(kind), "error": msg})
		httperr.WriteJSON(w, status, body)
		return
	}
	p.audited(r, contracts.ToolRequestMediaUpload, map[string]any{"contentType": in.ContentType, "bytes": req.Bytes}, in.MediaID)
	body, _ := json.Marshal(in)
	httperr.WriteJSON(w, http.StatusOK, body)
}

// previewCard is one card the editor's preview shows, rendered as the
// study page renders it.
type previewCard struct {
	Front string `json:"front"`
	Back  string `json:"back"`
}

// editorPreview answers the card editor's live preview (the form's own
// fields, URL-encoded; the CSRF token in the X-CSRF-Token header) with the
// cards the form would make as they will study: front and back for a
// card's form; for a note's (noteType, or noteId for the note being
// edited, and field-0, field-1, … in the type's order) the cards the note
// makes, through the note service. JSON {cards: [...]}, or an error with
// the reason (a field over the limit, a note that makes no card).
func (p *DeckPages) editorPreview(w http.ResponseWriter, r *http.Request, _ View) {
	ctx := r.Context()
	ref, names := r.PostFormValue("noteType"), []string(nil)
	if id := r.PostFormValue("noteId"); id != "" && ref == "" {
		n, err := p.svc.Notes.GetNote(ctx, id)
		if err != nil {
			p.studyJSONError(w, r, err)
			return
		}
		ref, names = n.NoteType, n.FieldNames
		if n.NoteTypeID != "" {
			ref = n.NoteTypeID
		}
	}
	var cards []contracts.NewCard
	switch {
	case ref == "":
		front, back := r.PostFormValue("front"), r.PostFormValue("back")
		if n := max(utf8.RuneCountInString(front), utf8.RuneCountInString(back)); n > contracts.MaxCardSideLen {
			p.studyJSONError(w, r, contracts.Errorf(contracts.KindInvalid, "a side is %d characters; the limit is %d", n, contracts.MaxCardSideLen))
			return
		}
		cards = []contracts.NewCard{{Front: front, Back: back}}
	default:
		if names == nil {
			types, err := p.svc.Notes.NoteTypes(ctx)
			if err != nil {
				p.studyJSONError(w, r, err)
				return
			}
			t, ok := findNoteType(types, ref)
			if !ok {
				p.studyJSONError(w, r, contracts.Errorf(contracts.KindInvalid, "choose one of the note types the form lists"))
				return
			}
			names = t.Fields
		}
		fields := make(map[string]string, len(names))
		for i, name := range names {
			fields[name] = r.PostFormValue("field-" + strconv.Itoa(i))
		}
		var err error
		if cards, err = p.svc.Notes.PreviewNote(ctx, ref, fields); err != nil {
			p.studyJSONError(w, r, err)
			return
		}
	}
	out := make([]previewCard, 0, min(len(cards), maxPreviewCards))
	for _, c := range cards[:min(len(cards), maxPreviewCards)] {
		out = append(out, previewCard{Front: string(p.html(c.Front)), Back: string(p.html(c.Back))})
	}
	body, _ := json.Marshal(map[string]any{"cards": out, "total": len(cards)})
	w.Header().Set("Cache-Control", "no-store")
	httperr.WriteJSON(w, http.StatusOK, body)
}

// maxPreviewCards bounds the cards one preview shows.
const maxPreviewCards = 5
