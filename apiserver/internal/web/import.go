package web

import (
	"encoding/json"
	"net/http"
	"path"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// The import page: the browser asks for an upload intent, PUTs the file
// to it (app.js, with the upload's progress), then posts the upload's id,
// which starts an import_package job; the job's page shows its progress
// until it ends, then its report.

// importTypes maps the file extensions the import page takes to the
// upload's content type.
var importTypes = map[string]string{
	".apkg": "application/zip", ".colpkg": "application/zip", ".zip": "application/zip",
	".txt": "text/plain", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
}

type importData struct {
	Decks []contracts.Deck
}

func (p *DeckPages) importPage(w http.ResponseWriter, r *http.Request, v View) {
	page, err := p.svc.Decks.ListDecks(r.Context(), contracts.ListDecksArgs{Limit: 100})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Title, v.Nav, v.Data = "Import", "decks", importData{Decks: page.Items}
	p.site.Render(w, r, "import", v)
}

// importUpload answers the page's script with an upload intent for the
// chosen file (JSON; the CSRF token travels in the X-CSRF-Token header).
func (p *DeckPages) importUpload(w http.ResponseWriter, r *http.Request, v View) {
	var req struct {
		Filename string `json:"filename"`
		Bytes    int64  `json:"bytes"`
	}
	in, err := contracts.MediaUploadIntent{}, json.NewDecoder(r.Body).Decode(&req)
	if err != nil {
		err = contracts.Errorf(contracts.KindInvalid, "send {filename, bytes} as JSON")
	} else if ct, ok := importTypes[strings.ToLower(path.Ext(req.Filename))]; !ok {
		err = contracts.Errorf(contracts.KindInvalid, "choose an Anki package (.apkg, .colpkg) or a text export (.txt, .csv, .tsv)")
	} else {
		in, err = p.svc.Media.RequestUpload(r.Context(), contracts.RequestMediaUploadArgs{ContentType: ct, Bytes: req.Bytes, Filename: req.Filename})
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

// importStart starts the import of a sent upload and shows its job.
func (p *DeckPages) importStart(w http.ResponseWriter, r *http.Request, v View) {
	args := contracts.ImportPackageArgs{UploadID: r.PostFormValue("uploadId"), DeckID: r.PostFormValue("deckId")}
	job, err := p.svc.Import.ImportPackage(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolImportPackage, args, job.ID)
	SeeOther(w, r, "/import/"+job.ID)
}

type importJobData struct {
	Job     contracts.Job
	Percent int64
	Report  *contracts.ImportReport
}

// importJob shows an import job: its progress while it runs (app.js
// reloads the page until it ends), then its report or why it failed.
func (p *DeckPages) importJob(w http.ResponseWriter, r *http.Request, v View) {
	job, err := p.svc.Jobs.GetJob(r.Context(), r.PathValue("id"))
	if err == nil && job.Kind != contracts.JobKindImportPackage {
		err = contracts.Errorf(contracts.KindNotFound, "import %s not found", r.PathValue("id"))
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	d := importJobData{Job: job}
	if job.Progress.Total > 0 {
		d.Percent = min(100, job.Progress.Done*100/job.Progress.Total)
	}
	if job.Status == contracts.JobSucceeded {
		var rep contracts.ImportReport
		if json.Unmarshal(job.Result, &rep) == nil {
			d.Report, d.Percent = &rep, 100
		}
	}
	v.Title, v.Nav, v.Data = "Import", "decks", d
	p.site.Render(w, r, "import-job", v)
}
