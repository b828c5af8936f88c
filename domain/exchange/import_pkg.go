package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// ImportService imports Anki packages (.apkg, .colpkg) and large text
// exports that were uploaded with request_media_upload, as long jobs of
// kind contracts.JobKindImportPackage.
type ImportService struct {
	*kernel.Deps
	reader ports.PackageReader
	media  *library.MediaService
	cards  *library.CardService
	jobs   kernel.Jobs
}

var _ ports.ImportService = (*ImportService)(nil)

// NewImportService builds the service and registers its job kind.
func NewImportService(d *kernel.Deps, media *library.MediaService, cards *library.CardService, jobs kernel.Jobs) *ImportService {
	s := &ImportService{Deps: d, reader: d.Cfg.PackageReader, media: media, cards: cards, jobs: jobs}
	jobs.Register(contracts.JobKindImportPackage, contracts.ScopeDecksWrite, s.run)
	jobs.SetBudget(contracts.JobKindImportPackage, ImportBudget)
	jobs.OnAbandoned(contracts.JobKindImportPackage, s.abandoned)
	jobs.Register(contracts.JobKindImportPreview, contracts.ScopeDecksWrite, s.runPreview)
	jobs.SetBudget(contracts.JobKindImportPreview, ImportBudget)
	return s
}

// ImportBudget is an import job's budget (issue 29 §3.2): 20 minutes, 5
// million items (media files, notes, cards and reviews, each charged as
// the import reads it) and 2 GiB of media and note text (twice the
// default media quota). A collection of 100,000 notes with two million
// reviews and a full media quota stays well inside it; a package that
// does not is refused before anything of it is published.
var ImportBudget = kernel.JobBudget{
	Limit: contracts.JobBudget{Seconds: 20 * 60, Rows: 5_000_000, Bytes: 2 << 30},
	Advice: "nothing of the package was imported (an import is published whole or not at all). " +
		"Split it: in Anki, export each subdeck as its own package (leave out the scheduling or the media if those are what is large) " +
		"and import the packages one at a time",
}

// abandoned ends an import whose runner stopped and that will not run
// again (canceled meanwhile, or out of attempts): what it staged, its
// media included, is dropped and its upload released, so neither stays
// invisible yet counted against the quota until the purges find them.
func (s *ImportService) abandoned(ctx context.Context, j ports.JobRow) {
	if ids, err := s.Store.ImportStages().StagesToDrop(ctx, j.ID, time.Time{}, 16); err == nil {
		s.dropStages(ctx, ids)
	}
	var in importInput
	if json.Unmarshal(j.Input, &in) == nil && in.UploadID != "" {
		s.release(ctx, j.UserID, in.UploadID)
	}
}

// importInput is an import job's input.
type importInput struct {
	UploadID string `json:"uploadId"`
	DeckID   string `json:"deckId,omitempty"`
}

// ImportPackage checks the upload and the deck and queues the import job.
// It never waits for the job, even when the request asked for progress:
// it runs inside the tool call's transaction, which must end before a
// runner can see the job (get_job waits and reports progress instead).
//
// With args.DryRun it previews the import instead (see preview): the
// import's own planning (DryRun in ImportOptions: no stage, no media
// stored, nothing published, the upload kept), within the call for a
// package that allows it, else as a job of kind
// contracts.JobKindImportPreview; either way its result is the report
// the import would have, with the first changes to notes and cards the
// account has.
func (s *ImportService) ImportPackage(ctx context.Context, args contracts.ImportPackageArgs) (contracts.Job, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Job{}, err
	}
	row, err := s.upload(ctx, uid, args.UploadID)
	if err != nil {
		return contracts.Job{}, err
	}
	if row.ContentType == "application/zip" && s.reader == nil {
		return contracts.Job{}, contracts.Errorf(contracts.KindUnavailable, "package imports are not available on this server; import a text export instead")
	}
	if args.DeckID != "" {
		if _, err := library.LoadDeck(ctx, s.Store, uid, args.DeckID); err != nil {
			return contracts.Job{}, err
		}
	}
	in := importInput{UploadID: args.UploadID, DeckID: args.DeckID}
	if args.DryRun {
		return s.preview(ctx, uid, in)
	}
	return s.jobs.Submit(contracts.WithProgress(ctx, nil), contracts.JobKindImportPackage, in)
}

// upload returns the user's sent upload of a type import_package reads.
func (s *ImportService) upload(ctx context.Context, uid, id string) (ports.MediaRow, error) {
	if !kernel.PlausibleID(id) {
		return ports.MediaRow{}, kernel.NotFound("upload", id)
	}
	row, err := s.Store.Media().MediaByID(ctx, id)
	if contracts.IsKind(err, contracts.KindNotFound) || (err == nil && row.UserID != uid) {
		return ports.MediaRow{}, kernel.NotFound("upload", id)
	}
	if err != nil {
		return ports.MediaRow{}, kernel.Fail(err)
	}
	if !slices.Contains(contracts.AttachmentTypes, row.ContentType) {
		return ports.MediaRow{}, contracts.Errorf(contracts.KindInvalid, "upload %s is %s; import_package reads application/zip (.apkg, .colpkg) or %s",
			kernel.QuoteID(id), row.ContentType, strings.Join(contracts.AttachmentTypes[1:], ", "))
	}
	if row.UploadedAt == nil {
		return ports.MediaRow{}, contracts.Errorf(contracts.KindInvalid, "upload %s has not been sent; PUT the file to its uploadUrl first", kernel.QuoteID(id))
	}
	return row, nil
}

// run is the import job's handler: it reads the upload, imports it, then
// releases the upload (its bytes no longer count against the quota) and
// records the import's end in the audit trail. A run stopped by its
// runner keeps the upload, so the job can resume; a run out of its time
// ends the job, which releases it.
func (s *ImportService) run(ctx context.Context, run *kernel.JobRun) (any, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return nil, err
	}
	var in importInput
	if err := json.Unmarshal(run.Job.Input, &in); err != nil {
		return nil, kernel.Fail(err)
	}
	rep, err := s.importUpload(ctx, p.UserID, in, ImportOptions{DeckID: in.DeckID, Progress: run.Progress, Charge: run.Charge, JobID: run.Job.ID})
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) && err != nil {
		return nil, err // stopped by its runner: a later run resumes
	}
	s.release(context.WithoutCancel(ctx), p.UserID, in.UploadID)
	s.auditDone(context.WithoutCancel(ctx), p, run.Job.ID, in, rep, err)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// importUpload imports (or, with opts.DryRun, plans the import of) the
// upload in: a package through Apply, a text export through the text
// importer.
func (s *ImportService) importUpload(ctx context.Context, uid string, in importInput, opts ImportOptions) (contracts.ImportReport, error) {
	row, err := s.upload(ctx, uid, in.UploadID)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	if s.Blobs == nil {
		return contracts.ImportReport{}, contracts.Errorf(contracts.KindUnavailable, "uploads cannot be read on this server")
	}
	blob, err := s.Blobs.OpenBlob(ctx, library.MediaBlobKey(row))
	if err != nil {
		return contracts.ImportReport{}, kernel.Fail(err)
	}
	defer blob.Close()
	if row.ContentType != "application/zip" {
		return s.importText(ctx, opts, uid, in.DeckID, blob)
	}
	if s.reader == nil {
		return contracts.ImportReport{}, contracts.Errorf(contracts.KindUnavailable, "package imports are not available on this server")
	}
	if opts.Progress != nil {
		opts.Progress(0, 0, "reading the package")
	}
	src, err := s.reader.OpenPackage(ctx, blob, blob.Size())
	if err != nil {
		return contracts.ImportReport{}, err
	}
	defer src.Close()
	return s.Apply(ctx, src, opts)
}

// release deletes an import's upload: the row, and its bytes unless
// another of the user's files has the same bytes. Failures are left to
// the media collector, which removes unused uploads after a grace period.
func (s *ImportService) release(ctx context.Context, uid, id string) {
	row, err := s.Store.Media().MediaByID(ctx, id)
	if err != nil || row.UserID != uid {
		return
	}
	s.dropMedia(ctx, row)
}

// dropMedia deletes one of the user's media rows and, when no other row
// shares them, its bytes, under the user's media lock.
func (s *ImportService) dropMedia(ctx context.Context, row ports.MediaRow) {
	_ = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.Media().LockMedia(ctx, row.UserID); err != nil {
			return err
		}
		if err := tx.Media().DeleteMedia(ctx, row.UserID, row.ID); err != nil {
			return err
		}
		if row.SHA256 == "" || s.Blobs == nil {
			return nil
		}
		used, err := tx.Media().BlobInUse(ctx, row.UserID, row.SHA256)
		if err != nil || used {
			return err
		}
		return s.Blobs.DeleteBlob(ctx, library.MediaBlobKey(row))
	})
}

// auditDone records the end of an import: the counts, or the error kind,
// under the job's id as its operation id, which its change records share.
func (s *ImportService) auditDone(ctx context.Context, p contracts.Principal, jobID string, in importInput, rep contracts.ImportReport, err error) {
	info, _ := contracts.AuditEventByName(contracts.AuditImportDone)
	summary, _ := json.Marshal(struct {
		importInput
		Report *contracts.ImportReport `json:"report,omitempty"`
	}{in, reportIf(rep, err)})
	e := contracts.AuditEvent{
		ID: s.IDs.NewID(), UserID: p.UserID, CredentialKind: p.CredentialKind, CredentialID: p.CredentialID,
		Tool: contracts.AuditImportDone, Action: info.Action, InputSummary: kernel.BoundSummary(summary, contracts.MaxAuditSummaryBytes),
		AffectedIDs: []string{jobID}, Outcome: contracts.AuditOK, At: s.Now(),
		OperationID: jobID, // the job's change records' (the audit page's Undo)
	}
	if err != nil {
		e.Outcome, e.ErrorKind = contracts.AuditError, contracts.KindOf(err)
	}
	_ = s.Store.Audit().AppendAudit(ctx, e)
}

func reportIf(rep contracts.ImportReport, err error) *contracts.ImportReport {
	if err != nil {
		return nil
	}
	rep.Skipped, rep.Dropped = nil, nil // counts only; the job keeps the whole report
	return &rep
}

// importText imports a text export through the text importer, at most
// contracts.MaxBulkItems cards a transaction (a dry run's all in one,
// rolled back).
func (s *ImportService) importText(ctx context.Context, opts ImportOptions, uid, deckID string, body io.Reader) (contracts.ImportReport, error) {
	if deckID == "" {
		return contracts.ImportReport{}, contracts.Errorf(contracts.KindInvalid, "a text import needs deckId: the deck its cards go to (rows naming a deck go there)")
	}
	raw, err := io.ReadAll(io.LimitReader(body, s.Cfg.MaxAttachmentBytes+1))
	if err != nil {
		return contracts.ImportReport{}, kernel.Fail(err)
	}
	if opts.Charge != nil {
		if err := opts.Charge(0, int64(len(raw))); err != nil {
			return contracts.ImportReport{}, err
		}
	}
	// The format is read from the text (Anki's # headers, the separator),
	// whichever text type the upload was sent as.
	return s.cards.ImportLarge(ctx, uid, deckID, string(raw), contracts.ImportAuto, opts.DryRun, opts.Progress)
}

// ImportOptions steer Apply.
type ImportOptions struct {
	// DeckID, when set, is the deck the package goes into: the package's
	// root deck becomes it and its other decks its subdecks.
	DeckID string
	// Progress receives how far the import has come (may be nil).
	Progress func(done, total int64, message string)
	// Charge counts items and bytes against the job's budget and says
	// when the job has gone over it (may be nil: no budget).
	Charge func(rows, bytes int64) error
	// JobID is the import's job ("" outside a job): a later attempt of
	// the job drops what this one staged.
	JobID string
	// DryRun plans the import through the same steps and reports it,
	// writing nothing: no stage, no media stored (each file is read and
	// checked), nothing published; the report's Changes preview the
	// updates of what the account has.
	DryRun bool
}
