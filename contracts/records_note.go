package contracts

import "time"

// Note limits.
const (
	MaxNoteFields = 64
	MaxNoteBulk   = 500
)

// The stock note types' names, as Anki names them.
const (
	NoteTypeBasic            = "Basic"
	NoteTypeBasicReversed    = "Basic (and reversed card)"
	NoteTypeBasicOptReversed = "Basic (optional reversed card)"
	NoteTypeBasicTypeIn      = "Basic (type in the answer)"
	NoteTypeCloze            = "Cloze"
)

// StockNoteTypes lists the stock note types' names.
var StockNoteTypes = []string{NoteTypeBasic, NoteTypeBasicReversed, NoteTypeBasicOptReversed, NoteTypeBasicTypeIn, NoteTypeCloze}

// Note is a note: fields of a note type, from which its cards are made.
type Note struct {
	ID         string            `json:"id"`
	NoteType   string            `json:"noteType"`             // the type's name
	NoteTypeID string            `json:"noteTypeId,omitempty"` // the id of the user's own type; "" for a stock type
	FieldNames []string          `json:"fieldNames"`           // the note type's fields, in order
	Fields     map[string]string `json:"fields"`
	Tags       []string          `json:"tags"`
	Cards      []NoteCard        `json:"cards"`
	CreatedAt  time.Time         `json:"createdAt"`
	UpdatedAt  time.Time         `json:"updatedAt"`
}

// NoteCard is one card of a note.
type NoteCard struct {
	ID     string `json:"id"`
	Ord    int    `json:"ord"` // template index, or cloze number - 1
	DeckID string `json:"deckId"`
	Front  string `json:"front"`
	Phase  Phase  `json:"phase"`
}

// NoteTypeInfo is a note type a note can be added with: a stock type or
// one of the user's own.
type NoteTypeInfo struct {
	ID     string   `json:"id,omitempty"` // the user's own type's id; "" for a stock type
	Name   string   `json:"name"`
	Cloze  bool     `json:"cloze,omitempty"` // its cards come from {{c1::…}} deletions in its first field
	Fields []string `json:"fields"`          // in order; a NewNote's Fields are keyed by these names
}

// Ref is what a NewNote's NoteType names this type by: its id for the
// user's own type, its name for a stock type.
func (t NoteTypeInfo) Ref() string {
	if t.ID != "" {
		return t.ID
	}
	return t.Name
}

// NewNote is one note to add.
type NewNote struct {
	NoteType string            `json:"noteType"`
	Fields   map[string]string `json:"fields"`
	Tags     []string          `json:"tags,omitempty"`
}

// NotePatch changes one note; fields not named stay as they are.
type NotePatch struct {
	ID     string            `json:"id"`
	Fields map[string]string `json:"fields,omitempty"`
	Tags   *[]string         `json:"tags,omitempty"`
}

// AddNotesArgs are add_notes' arguments.
type AddNotesArgs struct {
	DeckID         string    `json:"deckId"`
	Notes          []NewNote `json:"notes"`
	IdempotencyKey string    `json:"idempotencyKey,omitempty"`
}

// UpdateNotesArgs are update_notes' arguments.
type UpdateNotesArgs struct {
	Updates []NotePatch `json:"updates"`
	DryRun  bool        `json:"dryRun,omitempty"` // preview: the same outcomes, nothing written
}

// GetNoteArgs are get_note's arguments.
type GetNoteArgs struct {
	NoteID string `json:"noteId"`
}
