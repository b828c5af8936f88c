package ports

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// OperationState sums up one operation's change records and the reviews
// it logged (a submit_review call's), for the audit page's Undo.
type OperationState struct {
	Records int // records kept (not purged), and reviews logged
	Undone  int // of them, those an undo applied (reviews: taken back now)
	// TooOld counts, of the live reviews (not taken back), those logged
	// before the undo window's start: undo_changes no longer takes them
	// back.
	TooOld int
}

// ChangeStore keeps change records (contracts.ChangeRecord): what each
// mutation changed, written in the mutation's transaction, read and
// marked by undo_changes.
type ChangeStore interface {
	// AppendChanges inserts a user's records, all in one statement. It
	// forces each record's UserID to userID. Not found when the user does
	// not exist; conflict on a duplicate id; an empty slice writes nothing.
	AppendChanges(ctx context.Context, userID string, recs []contracts.ChangeRecord) error
	// ListChanges returns up to limit of the user's records matching f
	// (operations, credential, Since <= at < Until, not undone), newest
	// first (id descending), with ids below beforeID (from the newest
	// when ""). Another user's records are never returned.
	ListChanges(ctx context.Context, userID string, f contracts.ChangeFilter, beforeID string, limit int) ([]contracts.ChangeRecord, error)
	// MarkUndone sets UndoneBy to undoneBy on those of the user's records
	// among ids that are not undone yet and returns how many it marked: a
	// record marked by a concurrent undo is left as it is and not counted.
	MarkUndone(ctx context.Context, userID string, ids []string, undoneBy string) (int, error)
	// OperationStates returns, for each of the operations that has records
	// or review logs of the user, how many it has and how many are undone
	// (a review: while it is taken back), and how many of its live
	// reviews were logged before reviewsSince (TooOld); operations with
	// neither are left out. Any error is the store's.
	OperationStates(ctx context.Context, userID string, operationIDs []string, reviewsSince time.Time) (map[string]OperationState, error)
}
