package contracts

import (
	"context"
	"encoding/json"
	"time"
)

// ChangeDays is how long a change record is kept: undo_changes and the
// audit page's Undo reach back this far, then the purge deletes it.
const ChangeDays = 30

// ChangeTTL is ChangeDays as a duration.
const ChangeTTL = ChangeDays * 24 * time.Hour

// ChangeKind says what a change record undoes, and so how: the kind and
// the item's id name the item, the record's Prev what to put back.
type ChangeKind string

// The kinds of change records. An ".update" kind's Prev holds the
// previous values of the fields the change set; an ".add" kind names an
// item the change created (undo moves it to the trash); a ".delete" kind
// an item the change moved to the trash (undo restores it).
const (
	ChangeCardUpdate     ChangeKind = "card.update"     // front, back, tags, suspension or deck
	ChangeCardSchedule   ChangeKind = "card.schedule"   // the card's scheduling state (reschedule_cards)
	ChangeCardAdd        ChangeKind = "card.add"        // a card created
	ChangeCardDelete     ChangeKind = "card.delete"     // a card moved to the trash
	ChangeNoteUpdate     ChangeKind = "note.update"     // a note's fields and tags
	ChangeDeckUpdate     ChangeKind = "deck.update"     // a deck's name, description or settings
	ChangeDeckAdd        ChangeKind = "deck.add"        // a deck created
	ChangeDeckDelete     ChangeKind = "deck.delete"     // a deck moved to the trash with its cards
	ChangePresetUpdate   ChangeKind = "preset.update"   // a preset's settings or weights
	ChangeSettingsUpdate ChangeKind = "settings.update" // the account's settings
	ChangeReview         ChangeKind = "review"          // a review; its log keeps the card's previous state
	// ChangeReviewUndo is a review undo_changes took back (item: the
	// card; prev: {"reviewId": …}); undoing it applies the review again.
	ChangeReviewUndo ChangeKind = "review.undo"
	// ChangeCardBury is a change of a card's burial (bury_cards, unbury,
	// a sibling buried as a review's session serves it): prev
	// {"buriedUntil": time or null}; its Version is the burial the change
	// left, in milliseconds (0 for none), since burying keeps the card's
	// version.
	ChangeCardBury ChangeKind = "card.bury"
	// ChangeCardReturn is a card a filtered deck held sent home (its
	// empty or rebuild): prev {"deckId": the filtered deck}; undoing it
	// gathers the card back while it is unchanged.
	ChangeCardReturn ChangeKind = "card.return"
	// ChangeFilteredUpdate is a filtered deck's saved search changed by a
	// rebuild (item: the deck): prev {"search", "limit", "order",
	// "reschedule", "builtAt"}; its Version is the build time it left, in
	// milliseconds.
	ChangeFilteredUpdate ChangeKind = "filtered.update"
)

// ChangeRecord is what one mutation changed on one item, kept so that the
// change can be undone: written in the mutation's transaction, compact
// (only the previous values of the fields it changed), kept ChangeDays.
type ChangeRecord struct {
	ID string `json:"id"`
	// OperationID is the mutation's: the same as its audit row's (a
	// tool call, a REST or page request), or the job's id for a job.
	OperationID    string         `json:"operationId"`
	UserID         string         `json:"userId"`
	CredentialKind CredentialKind `json:"credentialKind"`
	CredentialID   string         `json:"credentialId,omitempty"`
	Kind           ChangeKind     `json:"kind"`
	ItemID         string         `json:"itemId"`
	// Version is the item's version (or update time, in milliseconds,
	// for items without one) right after the change: an undo skips the
	// item when it is no longer that, so it never overwrites a later edit.
	Version int64 `json:"version,omitempty"`
	// Prev holds the previous values of the fields the change set (a JSON
	// object); empty for additions, deletions and reviews.
	Prev      json.RawMessage `json:"prev,omitempty"`
	At        time.Time       `json:"at"`
	ExpiresAt time.Time       `json:"expiresAt"`
	// UndoneBy is the operation id of the undo that applied the record;
	// empty while it is not undone.
	UndoneBy string `json:"undoneBy,omitempty"`
}

// ChangeFilter narrows a listing of change records.
type ChangeFilter struct {
	OperationIDs []string // records of these operations (none: any)
	CredentialID string   // records made with this credential ("": any)
	Since        time.Time
	Until        time.Time // Since <= at < Until where set
	Pending      bool      // only records not undone yet
	// ExceptUndos leaves out the records undo operations wrote: an
	// operation that took back records (their UndoneBy) or reviews (its
	// review.undo records). An undo by credential and time takes back what
	// the agent did, not an earlier undo's own work, so a retried call
	// does not redo what the first one undid.
	ExceptUndos bool
}

// MaxPreviewChanges is how many changes a dry run shows (before → after).
const MaxPreviewChanges = 20

// ChangePreview is one change a dry run would make: the item, and its
// changed fields before and after (JSON objects).
type ChangePreview struct {
	Kind   ChangeKind      `json:"kind"`
	ID     string          `json:"id"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// MaxUndoItems bounds the change records one undo_changes call applies;
// its nextCursor continues.
const MaxUndoItems = 1000

// Undo outcomes.
const (
	UndoUndone  = "undone"
	UndoSkipped = "skipped"
)

// UndoItem is one change record's outcome in an undo.
type UndoItem struct {
	Kind   ChangeKind `json:"kind"`
	ID     string     `json:"id"` // the item's id
	Status string     `json:"status"`
	Reason string     `json:"reason,omitempty"` // why it was skipped
}

// UndoChangesResult is undo_changes' result. OperationID is the undo's own: undo
// it to redo what it undid.
type UndoChangesResult struct {
	OperationID string     `json:"operationId,omitempty"`
	Undone      int        `json:"undone"`
	Skipped     int        `json:"skipped"`
	Items       []UndoItem `json:"items"`
	NextCursor  string     `json:"nextCursor,omitempty"`
	DryRun      bool       `json:"dryRun,omitempty"`
}

type operationKey struct{}

// WithOperationID returns ctx carrying the id of the mutation it runs:
// minted before the mutation by the door it came through (a tool call, a
// REST or page request; a job's id for a job), shared by the mutation's
// change records and its audit row.
func WithOperationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, operationKey{}, id)
}

// OperationIDFrom returns the operation id in ctx, if any.
func OperationIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(operationKey{}).(string)
	return id, ok && id != ""
}
