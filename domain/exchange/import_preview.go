package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
)

// An import's dry run (issue 26 §1) reads the whole package, which for
// the largest ones takes minutes (make bench-import-preview
// PREVIEW_NOTES=100000 PREVIEW_REVIEWS=2000000 PREVIEW_MEDIA_MB=300, into
// an account holding those notes: 35-70 s on SQLite, 211-298 s on
// Postgres), longer than a tool call may take (30 s). So a dry run starts
// within the call, for at most previewInline (a third of the call's time
// left, if less), and a package that needs longer is previewed by a job
// of kind contracts.JobKindImportPreview, running the same planning. The
// call answers with that job; get_job gives the report once it ends, and
// the next dry run of the same upload and deck (the confirmation gate's,
// on the import's retry) answers with the job as it is then, or with its
// report while it is fresh.

// previewInline bounds the part of a dry run done within its call.
const previewInline = 10 * time.Second

// previewFresh is how long a preview job's report answers the dry runs
// of its upload: as long as the person's yes to an import lasts.
const previewFresh = contracts.ConfirmTTL

// errPreviewLong ends a dry run that needs longer than its call gives it.
var errPreviewLong = errors.New("the preview takes longer than a call")

// preview answers import_package's dry run: the preview job of the same
// upload and deck that has not ended, or ended with its report within
// previewFresh; else the dry run done now, as a finished job that is not
// stored (no id); else, when that needs longer than previewInline, the
// preview job it queues. A job answered with is waited for while the
// request asked for progress.
func (s *ImportService) preview(ctx context.Context, uid string, in importInput) (contracts.Job, error) {
	if j, ok, err := s.latestPreview(ctx, uid, in); err != nil || ok {
		return j, err
	}
	bound := previewInline
	if dl, ok := ctx.Deadline(); ok {
		bound = min(bound, time.Until(dl)/3)
	}
	inline, cancel := context.WithTimeoutCause(ctx, bound, errPreviewLong)
	defer cancel()
	start := s.Now()
	rep, err := s.importUpload(inline, uid, in, ImportOptions{DeckID: in.DeckID, DryRun: true})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(inline), errPreviewLong) {
		return s.jobs.Submit(ctx, contracts.JobKindImportPreview, in)
	}
	if err != nil {
		return contracts.Job{}, err
	}
	body, err := json.Marshal(rep)
	if err != nil {
		return contracts.Job{}, kernel.Fail(err)
	}
	end := s.Now()
	return contracts.Job{Kind: contracts.JobKindImportPreview, Status: contracts.JobSucceeded, DryRun: true, Result: body,
		CreatedAt: start, UpdatedAt: end, StartedAt: &start, FinishedAt: &end}, nil
}

// latestPreview returns the newest preview job of the upload and deck in
// when it has not ended, or succeeded within previewFresh; ok is false
// when there is none such (one that failed or was canceled is not used:
// the dry run is done again).
func (s *ImportService) latestPreview(ctx context.Context, uid string, in importInput) (j contracts.Job, ok bool, err error) {
	input, err := json.Marshal(in) // as Submit stores it
	if err != nil {
		return j, false, kernel.Fail(err)
	}
	row, err := s.Store.Jobs().LatestJob(ctx, uid, contracts.JobKindImportPreview, input)
	switch {
	case contracts.IsKind(err, contracts.KindNotFound):
		return j, false, nil
	case err != nil:
		return j, false, err
	case !row.Status.Final():
		if contracts.ProgressFrom(ctx) != nil {
			j, err = s.jobs.Wait(ctx, row.ID)
			return j, true, err
		}
	case row.Status != contracts.JobSucceeded || row.FinishedAt == nil || s.Now().Sub(*row.FinishedAt) > previewFresh:
		return j, false, nil
	}
	j = row.Job
	j.DryRun = true
	return j, true, nil
}

// runPreview is the preview job's handler: the import's dry run of the
// upload, under the import's budget. It keeps the upload and records
// nothing.
func (s *ImportService) runPreview(ctx context.Context, run *kernel.JobRun) (any, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	var in importInput
	if err := json.Unmarshal(run.Job.Input, &in); err != nil {
		return nil, kernel.Fail(err)
	}
	rep, err := s.importUpload(ctx, uid, in, ImportOptions{DeckID: in.DeckID, DryRun: true, Progress: run.Progress, Charge: run.Charge})
	if err != nil {
		return nil, err
	}
	return rep, nil
}
