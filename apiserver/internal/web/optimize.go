package web

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/takhtabush/takhtabush/contracts"
)

// The deck settings page's optimisation: a button starts an
// optimize_parameters job for the deck's preset and the page, with
// ?job=<id>, shows its progress (app.js refreshes the panel, data-refresh,
// while it runs) and, once done, the log loss and RMSE before and after
// and whether the weights were applied.

// optimizePath is the settings page showing job jobID.
func optimizePath(deckID, jobID string) string {
	return "/decks/" + url.PathEscape(deckID) + "/settings?job=" + url.QueryEscape(jobID) + "#optimise"
}

// optimizeJob fills in the page's optimisation job named by ?job=, if it
// is one of the person's optimisations.
func (p *DeckPages) optimizeJob(r *http.Request, form *settingsForm) error {
	id := r.URL.Query().Get("job")
	if id == "" {
		return nil
	}
	job, err := p.svc.Jobs.GetJob(r.Context(), id)
	if contracts.IsKind(err, contracts.KindNotFound) || (err == nil && job.Kind != contracts.JobKindOptimizeParameters) {
		return nil // an old or foreign link: the page shows no job
	}
	if err != nil {
		return err
	}
	form.Job = &job
	if job.Status == contracts.JobSucceeded {
		var rep contracts.OptimizeReport
		if err := json.Unmarshal(job.Result, &rep); err != nil {
			return contracts.Internal(err)
		}
		form.Report = &rep
	}
	return nil
}

// Percent is how far a job has come, 0-100, for its progress bar.
func (settingsForm) Percent(j *contracts.Job) int {
	if j == nil || j.Progress.Total <= 0 {
		return 0
	}
	return int(min(100, 100*j.Progress.Done/j.Progress.Total))
}

func (p *DeckPages) optimize(w http.ResponseWriter, r *http.Request, v View) {
	args := contracts.OptimizeParametersArgs{DeckID: r.PathValue("id")}
	job, err := p.svc.Decks.OptimizeParameters(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolOptimizeParameters, args, job.ID, args.DeckID)
	SeeOther(w, r, optimizePath(args.DeckID, job.ID))
}

func (p *DeckPages) cancelOptimize(w http.ResponseWriter, r *http.Request, v View) {
	args := contracts.CancelJobArgs{JobID: r.PostFormValue("jobId")}
	if _, err := p.svc.Jobs.CancelJob(r.Context(), args.JobID); err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.audited(r, contracts.ToolCancelJob, args, args.JobID)
	SeeOther(w, r, optimizePath(r.PathValue("id"), args.JobID))
}
