package ports

import (
	"context"
	"time"
)

// ImportStage names a package import's staging area: rows written there
// are seen by no read of notes, cards or reviews until the stage is
// published (issue 13 §6).
type ImportStage struct {
	ID     string
	UserID string
	// JobID is the import job the stage belongs to ("" for none), so a
	// job's next attempt can drop what an earlier attempt staged.
	JobID string
}

// StagePublished counts what publishing a stage copied into the live
// tables.
type StagePublished struct {
	Notes int
	Cards int
	// CardsSkipped counts staged cards left out because their deck got a
	// card with the same front and back after they were staged.
	CardsSkipped int
	Reviews      int
}

// StagedUpdate is one pending update an import staged (its body is the
// domain's own encoding), read back in Seq order when the stage publishes.
type StagedUpdate struct {
	Seq  int64
	Body string
}

// ImportStageStore keeps the staged rows of package imports. Staging
// writes go in whatever transaction the store runs in (one of their own
// outside a transaction), so an import writes its rows in short
// transactions and publishes them in one more.
type ImportStageStore interface {
	// CreateStage starts an empty stage at at.
	CreateStage(ctx context.Context, st ImportStage, at time.Time) error
	// StageNotes adds new notes (Version 1) to the user's stage.
	StageNotes(ctx context.Context, userID, stageID string, notes []NoteRow) error
	// StageCards adds new cards (Version 1) to the user's stage; their
	// decks need not exist until the stage is published.
	StageCards(ctx context.Context, userID, stageID string, cards []CardRow) error
	// StageReviews adds review logs to the user's stage.
	StageReviews(ctx context.Context, userID, stageID string, reviews []ReviewLog) error
	// StageUpdates appends pending updates of rows the account had to the
	// stage, in order, so an import holds none of them in memory until
	// it publishes.
	StageUpdates(ctx context.Context, stageID string, bodies []string) error
	// StagedUpdates returns up to limit of the stage's pending updates
	// after afterSeq (all when 0), in the order they were staged.
	StagedUpdates(ctx context.Context, stageID string, afterSeq int64, limit int) ([]StagedUpdate, error)
	// TouchStage records that the stage's import is still running, at at.
	TouchStage(ctx context.Context, stageID string, at time.Time) error
	// PublishStage copies the user's unpublished stage into notes and
	// cards, unstages its media and marks it published, at at; from then
	// on every read of review logs sees the stage's review logs too
	// (each once, under its card's deck), until DropStage moves them into
	// the review log. Run it in a transaction with the writes that go
	// with it. Cards whose deck already has their hash are skipped, with
	// their reviews and notes left without cards. Not found when the
	// stage is absent or already published; conflict when a staged
	// note's GUID or a card's id is taken.
	PublishStage(ctx context.Context, userID, stageID string, at time.Time) (StagePublished, error)
	// DropStage deletes up to limit staged rows of a stage (the stage
	// itself once it has none left) and reports whether the stage is gone;
	// a published stage's review logs are moved into the review log
	// instead, in the same transaction as they leave the stage (those of
	// cards gone since are dropped).
	DropStage(ctx context.Context, stageID string, limit int) (gone bool, err error)
	// StagesToDrop returns up to limit stages to drop: those of the job
	// when jobID is set, else those published, or untouched since before.
	StagesToDrop(ctx context.Context, jobID string, before time.Time, limit int) ([]string, error)
}
