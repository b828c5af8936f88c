package ports

import (
	"context"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
)

// McpServices is the one port mcpcore consumes: one method per catalog
// tool, named after the tool (list_decks → ListDecks), taking the tool's
// argument record and returning the record its outputSchema describes, plus
// the audit write and the exposure read. The apiserver binds it to the
// domain services of the principal in ctx.
//
// Errors follow the ports error contract; mcpcore turns invalid, not_found,
// conflict and forbidden into tool results a model can act on, and
// anything else into an internal error with a reference id.
type McpServices interface {
	// ListDecks lists the user's decks, paginated.
	ListDecks(ctx context.Context, args contracts.ListDecksArgs) (contracts.DeckPage, error)
	// GetDeck returns one deck. Not found when absent.
	GetDeck(ctx context.Context, args contracts.GetDeckArgs) (contracts.Deck, error)
	// SearchCards searches the user's cards.
	SearchCards(ctx context.Context, args contracts.SearchCardsArgs) (contracts.CardPage, error)
	// GetStudySnapshot reports what a deck offers now. Not found for an unknown deck.
	GetStudySnapshot(ctx context.Context, args contracts.GetStudySnapshotArgs) (contracts.StudySnapshot, error)
	// GetStats returns statistics. Not found for an unknown deck.
	GetStats(ctx context.Context, args contracts.GetStatsArgs) (contracts.Stats, error)
	// GetStudyPlan returns a plan. Not found for an unknown deck.
	GetStudyPlan(ctx context.Context, args contracts.GetStudyPlanArgs) (contracts.StudyPlan, error)
	// GetRetentionAdvice simulates a deck's preset at several desired
	// retentions and recommends the minimum one
	// (StatsService.RetentionAdvice). Not found for an unknown deck;
	// invalid for days out of range.
	GetRetentionAdvice(ctx context.Context, args contracts.GetRetentionAdviceArgs) (contracts.RetentionAdvice, error)
	// CreateDeck creates a deck. Conflict on a duplicate name.
	CreateDeck(ctx context.Context, args contracts.CreateDeckArgs) (contracts.Deck, error)
	// UpdateDeck changes a deck. Not found, or conflict on a duplicate name.
	UpdateDeck(ctx context.Context, args contracts.UpdateDeckArgs) (contracts.Deck, error)
	// DeleteDeck moves a deck and its cards to the trash. Not found when absent.
	DeleteDeck(ctx context.Context, args contracts.DeleteDeckArgs) (contracts.DeleteResult, error)
	// ListTrash returns a page of the trash. Invalid for a bad cursor.
	ListTrash(ctx context.Context, args contracts.ListTrashArgs) (contracts.TrashPage, error)
	// RestoreItems brings trashed decks and cards back, with per-item outcomes.
	RestoreItems(ctx context.Context, args contracts.RestoreItemsArgs) (contracts.RestoreResult, error)
	// UndoChanges undoes earlier changes from their change records
	// (UndoService.UndoChanges).
	UndoChanges(ctx context.Context, args contracts.UndoChangesArgs) (contracts.UndoChangesResult, error)
	// FilteredDeck creates, rebuilds or empties a filtered deck
	// (FilteredDeckService.FilteredDeck).
	FilteredDeck(ctx context.Context, args contracts.FilteredDeckArgs) (contracts.FilteredDeck, error)
	// AddCards adds cards with per-item outcomes. Not found for an unknown deck.
	AddCards(ctx context.Context, args contracts.AddCardsArgs) (contracts.BulkResult, error)
	// AddNotes adds notes with per-note outcomes. Not found for an unknown deck.
	AddNotes(ctx context.Context, args contracts.AddNotesArgs) (contracts.BulkResult, error)
	// UpdateNotes edits notes with per-note outcomes.
	UpdateNotes(ctx context.Context, args contracts.UpdateNotesArgs) (contracts.BulkResult, error)
	// GetNote returns one note. Not found when absent.
	GetNote(ctx context.Context, args contracts.GetNoteArgs) (contracts.Note, error)
	// UpdateCards edits cards with per-item outcomes.
	UpdateCards(ctx context.Context, args contracts.UpdateCardsArgs) (contracts.BulkResult, error)
	// DeleteCards moves cards to the trash, with per-item outcomes.
	DeleteCards(ctx context.Context, args contracts.DeleteCardsArgs) (contracts.BulkResult, error)
	// ImportCards imports pasted text with per-item outcomes. Not found for
	// an unknown deck; invalid for unparseable text.
	ImportCards(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error)
	// StartStudySession starts a session. Not found for an unknown deck.
	StartStudySession(ctx context.Context, args contracts.StartStudySessionArgs) (contracts.StudySession, error)
	// SubmitReview records a review. Not found for an unknown session;
	// conflict for a card not pending in it.
	SubmitReview(ctx context.Context, args contracts.SubmitReviewArgs) (contracts.ReviewResult, error)
	// UndoLastRating takes back a session's last rating
	// (StudyService.UndoLastReview). Not found for an unknown or expired
	// session; conflict when there is no rating to undo or the card
	// changed since.
	UndoLastRating(ctx context.Context, args contracts.UndoLastRatingArgs) (contracts.UndoResult, error)
	// RequestMediaUpload returns an upload intent. Invalid outside the limits.
	RequestMediaUpload(ctx context.Context, args contracts.RequestMediaUploadArgs) (contracts.MediaUploadIntent, error)
	// RenderStudySession returns a session (starting one when given a deck
	// id) with its absolute StudyURL and its current card rendered for the
	// study widget (StudyService.RenderSession). Not found for an unknown
	// session or deck; invalid unless exactly one id is given.
	RenderStudySession(ctx context.Context, args contracts.RenderStudySessionArgs) (contracts.StudyView, error)
	// RescheduleCards sets due dates or resets cards, per item.
	RescheduleCards(ctx context.Context, args contracts.RescheduleCardsArgs) (contracts.BulkResult, error)
	// BuryCards buries cards until the learner's next day, per item
	// (StudyService.BuryCards).
	BuryCards(ctx context.Context, args contracts.BuryCardsArgs) (contracts.BulkResult, error)
	// Unbury brings buried cards back (StudyService.Unbury). Not found
	// for an unknown deck.
	Unbury(ctx context.Context, args contracts.UnburyArgs) (contracts.UnburyResult, error)
	// GetSettings returns the account's settings of the learner's day.
	GetSettings(ctx context.Context, args contracts.GetSettingsArgs) (contracts.AccountSettings, error)
	// UpdateSettings changes them. Invalid for an unknown timezone or a value out of range.
	UpdateSettings(ctx context.Context, args contracts.UpdateSettingsArgs) (contracts.AccountSettings, error)
	// ExportDeck returns a download link of the deck as an .apkg. Not
	// found for an unknown deck.
	ExportDeck(ctx context.Context, args contracts.ExportDeckArgs) (contracts.ExportLink, error)
	// OptimizeParameters starts a job that fits a preset's FSRS weights
	// (DeckService.OptimizeParameters). Not found or invalid as there.
	OptimizeParameters(ctx context.Context, args contracts.OptimizeParametersArgs) (contracts.Job, error)
	// ImportPackage starts an import job of an uploaded package or text
	// file and returns the job without waiting. Not found for an unknown
	// upload or deck; invalid for an upload not sent or of another type.
	ImportPackage(ctx context.Context, args contracts.ImportPackageArgs) (contracts.Job, error)
	// GetJob returns one of the user's long jobs. Not found when absent;
	// forbidden when the credential lacks the job's scope.
	GetJob(ctx context.Context, args contracts.GetJobArgs) (contracts.Job, error)
	// CancelJob cancels one of the user's jobs. Not found or forbidden as GetJob.
	CancelJob(ctx context.Context, args contracts.CancelJobArgs) (contracts.Job, error)
	// SubmitJob stores a job of a registered kind (the MCP task of a tool
	// call: the kind is surface.TaskJobKind(tool), input the call) for the
	// acting user and returns it queued; a job runner on any instance runs
	// it. Invalid for an unregistered kind; forbidden when the credential
	// lacks the kind's scope.
	SubmitJob(ctx context.Context, kind string, input json.RawMessage) (contracts.Job, error)

	// Atomic runs fn, one mutating tool call and its audit write, in one
	// transaction: the calls made with fn's ctx join it, and WriteAudit
	// made with it runs under a savepoint, so a failed audit write rolls
	// back only the audit row and the mutation still commits (one commit in
	// all). It commits when fn returns nil; when fn returns an error,
	// nothing fn wrote is kept and the error is returned. A failed commit
	// is returned too: then nothing was applied.
	Atomic(ctx context.Context, fn func(ctx context.Context) error) error
	// WriteAudit stores an audit event for the principal in ctx. Its
	// failure never undoes the mutation the event describes.
	WriteAudit(ctx context.Context, e contracts.AuditEvent) error
	// Exposure returns the acting account's exposure settings, read at call time.
	Exposure(ctx context.Context) (contracts.ExposureSettings, error)
	// AskConfirm stores a pending confirmation of the acting user's call
	// (ConfirmService.Ask).
	AskConfirm(ctx context.Context, req contracts.ConfirmRequest) (contracts.Confirmation, error)
	// UseConfirm spends an answered confirmation on the retry of its call
	// (ConfirmService.Use).
	UseConfirm(ctx context.Context, id string, req contracts.ConfirmRequest) (contracts.ConfirmState, error)
}
