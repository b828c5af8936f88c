package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

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
	Dropped []droppedRow // what did not come over: the report's skips, then the markup removed
	Budget  string       // the job's budget and its use, worded; "" before it starts
}

// budgetLine words a job's budget and its use (issue 29 §3.2): "3 s of
// 20 min · 1220 of 5000000 items · 60.2 KiB of 2.0 GiB"; "" when the job
// has no budget yet (not started).
func budgetLine(b contracts.JobBudgetUse) string {
	if b == (contracts.JobBudgetUse{}) {
		return ""
	}
	var parts []string
	if b.Limit.Seconds > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s", time.Duration(b.Used.Seconds)*time.Second, time.Duration(b.Limit.Seconds)*time.Second))
	}
	if b.Limit.Rows > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d items", b.Used.Rows, b.Limit.Rows))
	}
	if b.Limit.Bytes > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s", sizeWords(b.Used.Bytes), sizeWords(b.Limit.Bytes)))
	}
	return strings.Join(parts, " · ")
}

// sizeWords words n bytes in the largest binary unit under it.
func sizeWords(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// droppedRow is one line of "What did not come over": how many of what,
// why, and an example.
type droppedRow struct {
	What, Why, Example string
}

// skipNouns are the singular and plural of an ImportSkip's What.
var skipNouns = map[string][2]string{
	"note": {"note", "notes"}, "card": {"card", "cards"}, "review": {"review", "reviews"},
	"media": {"media file", "media files"}, "deck": {"deck", "decks"},
}

// droppedRows lists what an import left out: each skip with its reason,
// then, by kind, the markup the text conversion removed.
func droppedRows(rep contracts.ImportReport) []droppedRow {
	var rows []droppedRow
	for _, sk := range rep.Skipped {
		n, ok := skipNouns[sk.What]
		if !ok {
			n = [2]string{sk.What, sk.What}
		}
		rows = append(rows, droppedRow{What: plural(sk.Count, n[0], n[1]), Why: sk.Reason, Example: sk.Example})
	}
	kinds := make([]string, 0, len(rep.Dropped))
	for k := range rep.Dropped {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		n := rep.Dropped[k]
		var r droppedRow
		switch name, _ := strings.CutPrefix(k, "tag:"); {
		case k == "image" || k == "sound":
			r = droppedRow{What: plural(n, k, k+"s"), Why: "the file was not in the upload, so the reference was removed"}
		case k == "link":
			r = droppedRow{What: plural(n, "link", "links"), Why: "not http or https: the link was removed, its text kept"}
		case name != k:
			r = droppedRow{What: plural(n, "<"+name+"> element", "<"+name+"> elements"), Why: "markup cards cannot show, removed from the text"}
		case strings.HasPrefix(k, "attribute:"):
			a := strings.TrimPrefix(k, "attribute:")
			r = droppedRow{What: plural(n, a+" attribute", a+" attributes"), Why: "markup cards cannot show, removed from the text"}
		default:
			r = droppedRow{What: plural(n, k, k), Why: "removed from the text"}
		}
		rows = append(rows, r)
	}
	return rows
}

// importJob shows an import job: its progress while it runs (app.js
// refreshes it, data-refresh, until it ends), then its report, what did
// not come over, or why it failed.
func (p *DeckPages) importJob(w http.ResponseWriter, r *http.Request, v View) {
	job, err := p.svc.Jobs.GetJob(r.Context(), r.PathValue("id"))
	if err == nil && job.Kind != contracts.JobKindImportPackage {
		err = contracts.Errorf(contracts.KindNotFound, "import %s not found", r.PathValue("id"))
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	d := importJobData{Job: job, Budget: budgetLine(job.Progress.Budget)}
	if job.Progress.Total > 0 {
		d.Percent = min(100, job.Progress.Done*100/job.Progress.Total)
	}
	if job.Status == contracts.JobSucceeded {
		var rep contracts.ImportReport
		if json.Unmarshal(job.Result, &rep) == nil {
			d.Report, d.Percent, d.Dropped = &rep, 100, droppedRows(rep)
		}
	}
	v.Title, v.Nav, v.Data = "Import", "decks", d
	p.site.Render(w, r, "import-job", v)
}
