package web

import (
	"encoding/json"
	"net/http"
	"slices"

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
