package contracts

// The argument records of the MCP tools, one per tool, in catalog order.
// Their JSON names match the tools' input schemas exactly.

// ListDecksArgs are list_decks' arguments.
type ListDecksArgs struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// GetDeckArgs are get_deck's arguments.
type GetDeckArgs struct {
	DeckID string `json:"deckId"`
}

// SearchCardsArgs are search_cards' arguments.
type SearchCardsArgs struct {
	Query     string      `json:"query,omitempty"`
	DeckID    string      `json:"deckId,omitempty"`
	Tags      []string    `json:"tags,omitempty"`
	State     string      `json:"state,omitempty"`
	DueBefore *DateOrTime `json:"dueBefore,omitempty"`
	Cursor    string      `json:"cursor,omitempty"`
	Limit     int         `json:"limit,omitempty"`
	// Sort and Descending order the web card browser's list (not tool
	// arguments: search_cards lists by id).
	Sort       CardSort `json:"-"`
	Descending bool     `json:"-"`
}

// GetStudySnapshotArgs are get_study_snapshot's arguments.
type GetStudySnapshotArgs struct {
	DeckID string `json:"deckId"`
}

// GetStatsArgs are get_stats' arguments.
type GetStatsArgs struct {
	DeckID string `json:"deckId,omitempty"`
	Days   int    `json:"days,omitempty"`
}

// GetStudyPlanArgs are get_study_plan's arguments.
type GetStudyPlanArgs struct {
	DeckID        string  `json:"deckId,omitempty"`
	Days          int     `json:"days,omitempty"`
	MinutesPerDay float64 `json:"minutesPerDay,omitempty"`
	Advise        bool    `json:"advise,omitempty"`
}

// CreateDeckArgs are create_deck's arguments.
type CreateDeckArgs struct {
	Name                string   `json:"name"`
	Description         string   `json:"description,omitempty"`
	DesiredRetention    *float64 `json:"desiredRetention,omitempty"`
	NewCardsPerDay      *int     `json:"newCardsPerDay,omitempty"`
	ReviewsPerDay       *int     `json:"reviewsPerDay,omitempty"`
	MaximumIntervalDays *int     `json:"maximumIntervalDays,omitempty"`
}

// UpdateDeckArgs are update_deck's arguments; absent fields stay as they are.
type UpdateDeckArgs struct {
	DeckID              string    `json:"deckId"`
	PresetID            string    `json:"presetId,omitempty"`
	Name                *string   `json:"name,omitempty"`
	Description         *string   `json:"description,omitempty"`
	DesiredRetention    *float64  `json:"desiredRetention,omitempty"`
	NewCardsPerDay      *int      `json:"newCardsPerDay,omitempty"`
	ReviewsPerDay       *int      `json:"reviewsPerDay,omitempty"`
	MaximumIntervalDays *int      `json:"maximumIntervalDays,omitempty"`
	LearningSteps       []float64 `json:"learningSteps,omitempty"`
	RelearningSteps     []float64 `json:"relearningSteps,omitempty"`
	Weights             []float64 `json:"weights,omitempty"`
	ReviewOrder         string    `json:"reviewOrder,omitempty"`
	NewOrder            string    `json:"newOrder,omitempty"`
	BuryNew             *bool     `json:"buryNew,omitempty"`
	BuryReviews         *bool     `json:"buryReviews,omitempty"`
	BuryInterday        *bool     `json:"buryInterday,omitempty"`
	LeechThreshold      *int      `json:"leechThreshold,omitempty"`
	LeechAction         string    `json:"leechAction,omitempty"`
	NewMix              string    `json:"newMix,omitempty"`
	// EasyDays are the preset's easy days (contracts.EasyDays): 7
	// shares, Monday first; all ones for none.
	EasyDays           []float64 `json:"easyDays,omitempty"`
	RescheduleOnChange *bool     `json:"rescheduleOnChange,omitempty"`
}

// DeleteDeckArgs are delete_deck's arguments.
type DeleteDeckArgs struct {
	DeckID string `json:"deckId"`
	DryRun bool   `json:"dryRun,omitempty"` // preview: the same outcome, nothing written
}

// AddCardsArgs are add_cards' arguments.
type AddCardsArgs struct {
	DeckID         string    `json:"deckId"`
	Cards          []NewCard `json:"cards"`
	IdempotencyKey string    `json:"idempotencyKey,omitempty"`
}

// UpdateCardsArgs are update_cards' arguments.
type UpdateCardsArgs struct {
	Updates []CardPatch `json:"updates"`
	DryRun  bool        `json:"dryRun,omitempty"` // preview: the same outcomes, nothing written
}

// DeleteCardsArgs are delete_cards' arguments.
type DeleteCardsArgs struct {
	CardIDs []string `json:"cardIds"`
	DryRun  bool     `json:"dryRun,omitempty"` // preview: the same outcomes, nothing written
}

// ImportCardsArgs are import_cards' arguments.
type ImportCardsArgs struct {
	DeckID         string       `json:"deckId"`
	Text           string       `json:"text"`
	Format         ImportFormat `json:"format,omitempty"`
	IdempotencyKey string       `json:"idempotencyKey,omitempty"`
	DryRun         bool         `json:"dryRun,omitempty"` // preview: the same outcomes, nothing written
}

// StartStudySessionArgs are start_study_session's arguments.
type StartStudySessionArgs struct {
	DeckID          string `json:"deckId"`
	NewLimit        *int   `json:"newLimit,omitempty"`
	ReviewLimit     *int   `json:"reviewLimit,omitempty"`
	ReviewAheadDays int    `json:"reviewAheadDays,omitempty"`
	Cram            bool   `json:"cram,omitempty"`
}

// SubmitReviewArgs are submit_review's arguments.
type SubmitReviewArgs struct {
	SessionID  string `json:"sessionId"`
	CardID     string `json:"cardId"`
	Position   *int   `json:"position,omitempty"`
	Rating     Rating `json:"rating"`
	DurationMs int    `json:"durationMs,omitempty"`
}

// RequestMediaUploadArgs are request_media_upload's arguments.
type RequestMediaUploadArgs struct {
	ContentType string `json:"contentType"`
	Bytes       int64  `json:"bytes"`
	Filename    string `json:"filename,omitempty"`
}

// RenderStudySessionArgs are render_study_session's arguments: exactly one
// of SessionID and DeckID.
type RenderStudySessionArgs struct {
	SessionID string `json:"sessionId,omitempty"`
	DeckID    string `json:"deckId,omitempty"`
}

// RescheduleCardsArgs are reschedule_cards' arguments: exactly one of
// DueDate, Days and Reset.
type RescheduleCardsArgs struct {
	CardIDs      []string `json:"cardIds"`
	DueDate      string   `json:"dueDate,omitempty"`
	Days         []int    `json:"days,omitempty"`
	Reset        bool     `json:"reset,omitempty"`
	KeepInterval bool     `json:"keepInterval,omitempty"`
	DryRun       bool     `json:"dryRun,omitempty"` // preview: the same outcomes, nothing written
}

// UndoChangesArgs are undo_changes' arguments: the operations to undo, or
// a time range (Since required) of one credential's changes (the caller's
// own when CredentialID is empty).
type UndoChangesArgs struct {
	OperationIDs []string    `json:"operationIds,omitempty"`
	CredentialID string      `json:"credentialId,omitempty"`
	Since        *DateOrTime `json:"since,omitempty"`
	Until        *DateOrTime `json:"until,omitempty"`
	Cursor       string      `json:"cursor,omitempty"`
	DryRun       bool        `json:"dryRun,omitempty"`
}

// UndoLastRatingArgs are undo_last_rating's arguments.
type UndoLastRatingArgs struct {
	SessionID string `json:"sessionId"`
}

// BuryCardsArgs are bury_cards' arguments.
type BuryCardsArgs struct {
	CardIDs []string `json:"cardIds"`
}

// UnburyArgs are unbury's arguments.
type UnburyArgs struct {
	DeckID string `json:"deckId,omitempty"`
}
