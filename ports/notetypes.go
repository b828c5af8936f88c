package ports

import (
	"context"
	"time"
)

// NoteTypeIDPrefix starts the id of every stored note type, so that a
// NoteRow's NoteType tells a stored type's id from a stock type's name.
const NoteTypeIDPrefix = "nt_"

// NoteTemplateRow is one card template of a stored note type, in Anki's
// template syntax.
type NoteTemplateRow struct {
	Name  string `json:"name"`
	Front string `json:"front"`
	Back  string `json:"back"`
}

// NoteTypeRow is a note type of the user's own (issue 13 §2): one an
// Anki package brought that is not a stock type. Kind is "standard" or
// "cloze"; Fields and Templates are in Anki's order. AnkiID is the model
// id the type had in the package it came from (0 for none), so that a
// later import of the same package finds it again.
type NoteTypeRow struct {
	ID        string
	Name      string
	Kind      string
	Fields    []string
	Templates []NoteTemplateRow
	CSS       string
	AnkiID    int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NoteTypeStore keeps the users' own note types. Every method sees only
// the given user's types.
type NoteTypeStore interface {
	// PutNoteType inserts the user's note type t, or, when the user has a
	// type with t.ID, replaces its name, kind, fields, templates, CSS,
	// AnkiID and UpdatedAt (CreatedAt is kept). Conflict when t.ID is
	// another user's.
	PutNoteType(ctx context.Context, userID string, t NoteTypeRow) error
	// GetNoteTypes returns the user's note types with these ids, in no
	// particular order; ids that are absent or another user's are left out.
	GetNoteTypes(ctx context.Context, userID string, ids []string) ([]NoteTypeRow, error)
	// ListNoteTypes returns up to limit of the user's note types with ids
	// after after (all when after is ""), ordered by id.
	ListNoteTypes(ctx context.Context, userID, after string, limit int) ([]NoteTypeRow, error)
}
