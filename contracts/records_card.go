package contracts

import "time"

// Card limits.
const (
	MaxCardSideLen   = 10000
	MaxTagsPerCard   = 20
	MaxTagLen        = 64
	MaxBulkItems     = 1000
	MaxImportBytes   = 1 << 20
	MaxSearchResults = 100
)

// Phase is where a card is in the FSRS state machine.
type Phase string

// The phases.
const (
	PhaseNew        Phase = "new"
	PhaseLearning   Phase = "learning"
	PhaseReview     Phase = "review"
	PhaseRelearning Phase = "relearning"
)

// Card is one flashcard.
type Card struct {
	ID        string    `json:"id"`
	DeckID    string    `json:"deckId"`
	NoteID    string    `json:"noteId,omitempty"` // the note the card was made from, if any
	Ord       int       `json:"ord,omitempty"`    // its template index or cloze number - 1 in the note
	Front     string    `json:"front"`
	Back      string    `json:"back"`
	Tags      []string  `json:"tags"`
	Suspended bool      `json:"suspended"`
	Flag      int       `json:"flag,omitempty"` // 0 none, 1-7 as Anki's flags (CardFlags)
	State     CardState `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// CardState is a card's scheduling state (FSRS memory model).
type CardState struct {
	Phase         Phase      `json:"phase"`
	Due           time.Time  `json:"due"`
	Stability     float64    `json:"stability"`
	Difficulty    float64    `json:"difficulty"`
	ScheduledDays int        `json:"scheduledDays"`
	Reps          int        `json:"reps"`
	Lapses        int        `json:"lapses"`
	Step          int        `json:"step"` // learning or relearning step reached
	LastReview    *time.Time `json:"lastReview,omitempty"`
}

// LeechTag is the tag a leech's note (a card that lapsed the preset's
// leech threshold of times) gets, as Anki's.
const LeechTag = "leech"

// CardReview is one entry of a card's review history: a rating, or a
// manual change of its schedule (rating "manual"), with the schedule it
// left.
type CardReview struct {
	ReviewedAt time.Time `json:"reviewedAt"`
	Rating     Rating    `json:"rating"`
	PrevPhase  Phase     `json:"prevPhase"`
	State      CardState `json:"state"` // after it
	DurationMs int       `json:"durationMs,omitempty"`
}

// CardPage is a page of cards.
type CardPage = Page[Card]

// NewCard is one card to add.
type NewCard struct {
	Front string   `json:"front"`
	Back  string   `json:"back"`
	Tags  []string `json:"tags,omitempty"`
}

// CardPatch changes one card; nil fields stay as they are.
type CardPatch struct {
	ID        string    `json:"id"`
	Front     *string   `json:"front,omitempty"`
	Back      *string   `json:"back,omitempty"`
	Tags      *[]string `json:"tags,omitempty"`
	Suspended *bool     `json:"suspended,omitempty"`
	DeckID    *string   `json:"deckId,omitempty"` // move to this deck
	// Flag sets the card's flag (0 clears it); the web app's, not an
	// update_cards argument.
	Flag *int `json:"flag,omitempty"`
}

// CardFlags name the flags 1-7, as Anki's; index 0 is no flag.
var CardFlags = []string{"", "red", "orange", "green", "blue", "pink", "turquoise", "purple"}

// OutcomeStatus is what happened to one item of a bulk operation.
type OutcomeStatus string

// The outcome statuses.
const (
	OutcomeCreated   OutcomeStatus = "created"
	OutcomeUpdated   OutcomeStatus = "updated"
	OutcomeDeleted   OutcomeStatus = "deleted"
	OutcomeDuplicate OutcomeStatus = "duplicate" // ExistingID names the card it duplicates
	OutcomeInvalid   OutcomeStatus = "invalid"   // Reason says why
	OutcomeNotFound  OutcomeStatus = "not_found"
	OutcomeConflict  OutcomeStatus = "conflict" // e.g. a move would duplicate a card in the target deck
)

// ItemOutcome is the outcome of one item of a bulk operation.
type ItemOutcome struct {
	Index      int           `json:"index"`
	Status     OutcomeStatus `json:"status"`
	ID         string        `json:"id,omitempty"`
	ExistingID string        `json:"existingId,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	Line       int           `json:"line,omitempty"`    // import: the line the card's note starts on
	DeckID     string        `json:"deckId,omitempty"`  // import: the deck the card went to, when not the result's deck
	CardIDs    []string      `json:"cardIds,omitempty"` // notes: the note's cards
}

// BulkResult is the outcome of a bulk operation, item by item, with totals.
type BulkResult struct {
	DeckID   string         `json:"deckId,omitempty"`
	Items    []ItemOutcome  `json:"items"`
	Counts   map[string]int `json:"counts"` // outcome status → number of items
	Replayed bool           `json:"replayed,omitempty"`
	// Dropped counts, for an import, what converting Anki HTML left out:
	// "image" and "sound" (media files a text export does not carry),
	// "tag:NAME", "attribute:NAME", "link".
	Dropped map[string]int `json:"dropped,omitempty"`
	// DecksCreated names the decks an import created for its deck column.
	DecksCreated []string `json:"decksCreated,omitempty"`
	// DryRun says nothing was written: the outcomes are those the call
	// would have, and Changes shows the first of its changes.
	DryRun  bool            `json:"dryRun,omitempty"`
	Changes []ChangePreview `json:"changes,omitempty"`
}

// ImportFormat names a pasted-text format.
type ImportFormat string

// The import formats.
const (
	ImportAuto ImportFormat = "auto"
	ImportCSV  ImportFormat = "csv"
	ImportTSV  ImportFormat = "tsv"
	ImportAnki ImportFormat = "anki" // Anki "Notes in Plain Text" export
)

// CardFilter selects cards for search.
type CardFilter struct {
	Query  string   // full-text query over front, back and tags; empty matches all
	DeckID string   // only this deck
	Tags   []string // cards carrying every one of these tags
	State  string   // new, learning, review, relearning, suspended, buried, leech, or "" for any
	DueBy  *time.Time
	// Sort orders the cards by a scheduling value instead of by id (ties
	// by id); Desc reverses the value's order. With Sort, a page goes on
	// after the card (AfterKey, the search's after id): AfterKey is the
	// last card's SortValue.
	Sort     CardSort
	Desc     bool
	AfterKey float64
	// Flag, when set, selects the cards with this flag (0: none).
	Flag *int
}

// CardSort is an order of the card browser.
type CardSort string

// The card browser's orders; "" is by id (the order of search_cards).
const (
	SortDue        CardSort = "due"
	SortInterval   CardSort = "interval"
	SortDifficulty CardSort = "difficulty"
	SortLapses     CardSort = "lapses"
	SortAdded      CardSort = "added"
)

// CardSorts are the orders a search may ask for.
var CardSorts = []CardSort{SortDue, SortInterval, SortDifficulty, SortLapses, SortAdded}

// SortValue is the card's value in the order: due and added times in
// Unix milliseconds, the interval in days, difficulty, lapses.
func (c Card) SortValue(o CardSort) float64 {
	switch o {
	case SortDue:
		return float64(c.State.Due.UnixMilli())
	case SortInterval:
		return float64(c.State.ScheduledDays)
	case SortDifficulty:
		return c.State.Difficulty
	case SortLapses:
		return float64(c.State.Lapses)
	case SortAdded:
		return float64(c.CreatedAt.UnixMilli())
	}
	return 0
}
