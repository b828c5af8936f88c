package mcpbind

import (
	"context"
	"encoding/json"

	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Services are the domain services the binding calls.
type Services struct {
	Decks    ports.DeckService
	Cards    ports.CardService
	Notes    ports.NoteService
	Study    ports.StudyService
	Stats    ports.StatsService
	Media    ports.MediaService
	Exposure ports.ExposureService
	Audit    ports.AuditService
	Settings ports.SettingsService
	Jobs     ports.JobService
	Export   ports.ExportService
	Trash    ports.TrashService
	Import   ports.ImportService
	Undo     ports.UndoService
	Confirm  ports.ConfirmService
	Filtered ports.FilteredDeckService
	// Tx runs a mutation and its audit row in one transaction; nil runs
	// them one after the other.
	Tx ports.TxRunner
}

// AuditFailures counts audit rows that could not be written.
type AuditFailures interface {
	// AuditFailed counts one failure.
	AuditFailed()
}

// Binding implements ports.McpServices on the domain services.
type Binding struct {
	svc  Services
	fail AuditFailures
}

var _ ports.McpServices = (*Binding)(nil)

// New returns the binding. failures counts audit write failures; nil
// counts nothing.
func New(svc Services, failures AuditFailures) *Binding {
	return &Binding{svc: svc, fail: failures}
}

// ListDecks implements ports.McpServices.
func (b *Binding) ListDecks(ctx context.Context, args contracts.ListDecksArgs) (contracts.DeckPage, error) {
	return b.svc.Decks.ListDecks(ctx, args)
}

// GetDeck implements ports.McpServices.
func (b *Binding) GetDeck(ctx context.Context, args contracts.GetDeckArgs) (contracts.Deck, error) {
	return b.svc.Decks.GetDeck(ctx, args.DeckID)
}

// SearchCards implements ports.McpServices.
func (b *Binding) SearchCards(ctx context.Context, args contracts.SearchCardsArgs) (contracts.CardPage, error) {
	return b.svc.Cards.SearchCards(ctx, args)
}

// GetStudySnapshot implements ports.McpServices.
func (b *Binding) GetStudySnapshot(ctx context.Context, args contracts.GetStudySnapshotArgs) (contracts.StudySnapshot, error) {
	return b.svc.Study.Snapshot(ctx, args.DeckID)
}

// GetStats implements ports.McpServices.
func (b *Binding) GetStats(ctx context.Context, args contracts.GetStatsArgs) (contracts.Stats, error) {
	return b.svc.Stats.Stats(ctx, args)
}

// GetStudyPlan implements ports.McpServices.
func (b *Binding) GetStudyPlan(ctx context.Context, args contracts.GetStudyPlanArgs) (contracts.StudyPlan, error) {
	return b.svc.Stats.Plan(ctx, args)
}

// GetRetentionAdvice implements ports.McpServices.
func (b *Binding) GetRetentionAdvice(ctx context.Context, args contracts.GetRetentionAdviceArgs) (contracts.RetentionAdvice, error) {
	return b.svc.Stats.RetentionAdvice(ctx, args)
}

// CreateDeck implements ports.McpServices.
func (b *Binding) CreateDeck(ctx context.Context, args contracts.CreateDeckArgs) (contracts.Deck, error) {
	return b.svc.Decks.CreateDeck(ctx, args)
}

// UpdateDeck implements ports.McpServices.
func (b *Binding) UpdateDeck(ctx context.Context, args contracts.UpdateDeckArgs) (contracts.Deck, error) {
	return b.svc.Decks.UpdateDeck(ctx, args)
}

// DeleteDeck implements ports.McpServices.
func (b *Binding) DeleteDeck(ctx context.Context, args contracts.DeleteDeckArgs) (contracts.DeleteResult, error) {
	return b.svc.Decks.DeleteDeck(ctx, args)
}

// ListTrash implements ports.McpServices.
func (b *Binding) ListTrash(ctx context.Context, args contracts.ListTrashArgs) (contracts.TrashPage, error) {
	return b.svc.Trash.ListTrash(ctx, args)
}

// FilteredDeck implements ports.McpServices.
func (b *Binding) FilteredDeck(ctx context.Context, args contracts.FilteredDeckArgs) (contracts.FilteredDeck, error) {
	return b.svc.Filtered.FilteredDeck(ctx, args)
}

// UndoChanges implements ports.McpServices.
func (b *Binding) UndoChanges(ctx context.Context, args contracts.UndoChangesArgs) (contracts.UndoChangesResult, error) {
	return b.svc.Undo.UndoChanges(ctx, args)
}

// RestoreItems implements ports.McpServices.
func (b *Binding) RestoreItems(ctx context.Context, args contracts.RestoreItemsArgs) (contracts.RestoreResult, error) {
	return b.svc.Trash.RestoreItems(ctx, args)
}

// AddCards implements ports.McpServices.
func (b *Binding) AddCards(ctx context.Context, args contracts.AddCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Cards.AddCards(ctx, args)
}

// UpdateCards implements ports.McpServices.
func (b *Binding) UpdateCards(ctx context.Context, args contracts.UpdateCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Cards.UpdateCards(ctx, args)
}

// DeleteCards implements ports.McpServices.
func (b *Binding) DeleteCards(ctx context.Context, args contracts.DeleteCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Cards.DeleteCards(ctx, args)
}

// AddNotes implements ports.McpServices.
func (b *Binding) AddNotes(ctx context.Context, args contracts.AddNotesArgs) (contracts.BulkResult, error) {
	return b.svc.Notes.AddNotes(ctx, args)
}

// UpdateNotes implements ports.McpServices.
func (b *Binding) UpdateNotes(ctx context.Context, args contracts.UpdateNotesArgs) (contracts.BulkResult, error) {
	return b.svc.Notes.UpdateNotes(ctx, args)
}

// GetNote implements ports.McpServices.
func (b *Binding) GetNote(ctx context.Context, args contracts.GetNoteArgs) (contracts.Note, error) {
	return b.svc.Notes.GetNote(ctx, args.NoteID)
}

// ImportCards implements ports.McpServices.
func (b *Binding) ImportCards(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Cards.ImportCards(ctx, args)
}

// StartStudySession implements ports.McpServices.
func (b *Binding) StartStudySession(ctx context.Context, args contracts.StartStudySessionArgs) (contracts.StudySession, error) {
	return b.svc.Study.StartSession(ctx, args)
}

// SubmitReview implements ports.McpServices.
func (b *Binding) SubmitReview(ctx context.Context, args contracts.SubmitReviewArgs) (contracts.ReviewResult, error) {
	return b.svc.Study.SubmitReview(ctx, args)
}

// UndoLastRating implements ports.McpServices.
func (b *Binding) UndoLastRating(ctx context.Context, args contracts.UndoLastRatingArgs) (contracts.UndoResult, error) {
	return b.svc.Study.UndoLastReview(ctx, args.SessionID)
}

// RequestMediaUpload implements ports.McpServices.
func (b *Binding) RequestMediaUpload(ctx context.Context, args contracts.RequestMediaUploadArgs) (contracts.MediaUploadIntent, error) {
	return b.svc.Media.RequestUpload(ctx, args)
}

// RenderStudySession implements ports.McpServices: the study service
// holds its rules.
func (b *Binding) RenderStudySession(ctx context.Context, args contracts.RenderStudySessionArgs) (contracts.StudyView, error) {
	return b.svc.Study.RenderSession(ctx, args)
}

// BuryCards implements ports.McpServices.
func (b *Binding) BuryCards(ctx context.Context, args contracts.BuryCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Study.BuryCards(ctx, args)
}

// Unbury implements ports.McpServices.
func (b *Binding) Unbury(ctx context.Context, args contracts.UnburyArgs) (contracts.UnburyResult, error) {
	return b.svc.Study.Unbury(ctx, args)
}

// RescheduleCards implements ports.McpServices.
func (b *Binding) RescheduleCards(ctx context.Context, args contracts.RescheduleCardsArgs) (contracts.BulkResult, error) {
	return b.svc.Study.RescheduleCards(ctx, args)
}

// GetSettings implements ports.McpServices.
func (b *Binding) GetSettings(ctx context.Context, _ contracts.GetSettingsArgs) (contracts.AccountSettings, error) {
	return b.svc.Settings.Settings(ctx)
}

// UpdateSettings implements ports.McpServices.
func (b *Binding) UpdateSettings(ctx context.Context, args contracts.UpdateSettingsArgs) (contracts.AccountSettings, error) {
	return b.svc.Settings.UpdateSettings(ctx, args)
}

// atomicKey marks a context inside Atomic.
type atomicKey struct{}

// Atomic implements ports.McpServices: fn runs in one call transaction of
// the store, which the domain services' calls made with its ctx join.
func (b *Binding) Atomic(ctx context.Context, fn func(ctx context.Context) error) error {
	if b.svc.Tx == nil {
		return fn(ctx)
	}
	// A failed call fails the whole transaction (its failure is audited
	// apart), so the services' own transactions join it without a
	// savepoint; only the audit row takes one (WriteAudit).
	return b.svc.Tx.InCallTx(ctx, func(ctx context.Context) error {
		return fn(ports.FailureEndsCall(context.WithValue(ctx, atomicKey{}, true), true))
	})
}

// WriteAudit records the event through the audit service; inside Atomic
// under a savepoint of the mutation's transaction, so that a failed write
// rolls back only the row. The request id becomes the HTTP request's
// (X-Request-Id) when there is one, so the row joins the access log. A
// failure is counted here; the surface logs it and marks the result's
// _meta, and the mutation stays applied.
func (b *Binding) WriteAudit(ctx context.Context, e contracts.AuditEvent) error {
	if id := obs.RequestID(ctx); id != "" {
		e.RequestID = id
	}
	var err error
	if ctx.Value(atomicKey{}) != nil {
		ctx := ports.FailureEndsCall(ctx, false) // the mutation commits even when its audit row fails
		err = b.svc.Tx.InTx(ctx, func(ports.Stores) error { return b.svc.Audit.Record(ctx, e) })
	} else {
		err = b.svc.Audit.Record(ctx, e)
	}
	if err != nil && b.fail != nil {
		b.fail.AuditFailed()
	}
	return err
}

// Exposure reads the account's exposure settings once per HTTP request
// (tools/list asks once per tool) and on every call elsewhere.
func (b *Binding) Exposure(ctx context.Context) (contracts.ExposureSettings, error) {
	return obs.RequestFrom(ctx).Exposure(func() (contracts.ExposureSettings, error) {
		return b.svc.Exposure.Exposure(ctx)
	})
}

// OptimizeParameters implements ports.McpServices.
func (b *Binding) OptimizeParameters(ctx context.Context, args contracts.OptimizeParametersArgs) (contracts.Job, error) {
	return b.svc.Decks.OptimizeParameters(ctx, args)
}

// GetJob implements ports.McpServices.
func (b *Binding) GetJob(ctx context.Context, args contracts.GetJobArgs) (contracts.Job, error) {
	return b.svc.Jobs.GetJob(ctx, args.JobID)
}

// CancelJob implements ports.McpServices.
func (b *Binding) CancelJob(ctx context.Context, args contracts.CancelJobArgs) (contracts.Job, error) {
	return b.svc.Jobs.CancelJob(ctx, args.JobID)
}

// SubmitJob implements ports.McpServices.
func (b *Binding) SubmitJob(ctx context.Context, kind string, input json.RawMessage) (contracts.Job, error) {
	return b.svc.Jobs.Submit(ctx, kind, input)
}

// ImportPackage implements ports.McpServices.
func (b *Binding) ImportPackage(ctx context.Context, args contracts.ImportPackageArgs) (contracts.Job, error) {
	return b.svc.Import.ImportPackage(ctx, args)
}

// ExportDeck implements ports.McpServices.
func (b *Binding) ExportDeck(ctx context.Context, args contracts.ExportDeckArgs) (contracts.ExportLink, error) {
	return b.svc.Export.ExportDeck(ctx, args)
}

// AskConfirm implements ports.McpServices.
func (b *Binding) AskConfirm(ctx context.Context, req contracts.ConfirmRequest) (contracts.Confirmation, error) {
	return b.svc.Confirm.Ask(ctx, req)
}

// UseConfirm implements ports.McpServices.
func (b *Binding) UseConfirm(ctx context.Context, id string, req contracts.ConfirmRequest) (contracts.ConfirmState, error) {
	return b.svc.Confirm.Use(ctx, id, req)
}
