package sqlstore

import (
	"context"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// noteCols are the columns scanNote reads, in order.
const noteCols = `id, note_type, guid, fields, tags, version, created_at, updated_at`

// noteInsertChunk bounds the rows of one multi-row note INSERT (9
// placeholders a row).
const noteInsertChunk = 1000

// InsertNotes inserts notes with Version 1. Conflict when a GUID is
// taken; nothing is inserted then.
func (s noteStore) InsertNotes(ctx context.Context, userID string, notes []ports.NoteRow) error {
	if len(notes) == 0 {
		return nil
	}
	return s.atomic(ctx, func(h *handle) error {
		var b strings.Builder
		for _, chunk := range chunks(notes, noteInsertChunk) {
			b.Reset()
			b.WriteString(`INSERT INTO notes (id, user_id, ` + noteCols[len("id, "):] + `) VALUES `)
			a := make(args, 0, len(chunk)*9)
			for i, n := range chunk {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('(')
				b.WriteString(seq(&a, h.s.d, []any{n.ID, userID, n.NoteType, n.GUID, stringsJSON(n.Fields), stringsJSON(n.Tags),
					int64(1), ms(n.CreatedAt), ms(n.UpdatedAt)}))
				b.WriteByte(')')
			}
			if _, err := h.exec(ctx, b.String(), a...); err != nil {
				return h.fail(ctx, err, "insert notes", failMsgs{unique: "a note with the same GUID already exists"})
			}
		}
		return nil
	})
}

// GetNotes returns the user's notes with these ids that exist.
func (s noteStore) GetNotes(ctx context.Context, userID string, ids []string) ([]ports.NoteRow, error) {
	out := []ports.NoteRow{}
	for _, chunk := range chunks(dedupe(ids), inChunk) {
		var a args
		q := `SELECT ` + noteCols + ` FROM notes WHERE user_id = ` + a.add(userID) + ` AND id IN (` + list(&a, chunk) + `)`
		var err error
		if out, err = s.scanNotes(ctx, out, "get notes", q, a...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ListNotes returns up to limit of the user's notes with ids after
// afterID, by id (the primary key's order).
func (s noteStore) ListNotes(ctx context.Context, userID, afterID string, limit int) ([]ports.NoteRow, error) {
	if limit <= 0 {
		return []ports.NoteRow{}, nil
	}
	return s.scanNotes(ctx, []ports.NoteRow{}, "list notes",
		`SELECT `+noteCols+` FROM notes WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`, userID, afterID, limit)
}

// scanNotes appends the notes q selects (noteCols) to out.
func (s noteStore) scanNotes(ctx context.Context, out []ports.NoteRow, what, q string, a ...any) ([]ports.NoteRow, error) {
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, what)
	}
	defer rows.Close()
	for rows.Next() {
		var n ports.NoteRow
		var fields, tags string
		var created, updated int64
		if err := rows.Scan(&n.ID, &n.NoteType, &n.GUID, &fields, &tags, &n.Version, &created, &updated); err != nil {
			return nil, s.s.wrap(ctx, err, what)
		}
		if n.Fields, err = parseStrings(fields); err == nil {
			n.Tags, err = parseStrings(tags)
		}
		if err != nil {
			return nil, s.s.wrap(ctx, err, what)
		}
		n.CreatedAt, n.UpdatedAt = fromMs(created), fromMs(updated)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, what)
	}
	return out, nil
}

// UpdateNote stores note type, fields, tags and updatedAt when the
// version matches.
func (s noteStore) UpdateNote(ctx context.Context, userID string, n ports.NoteRow) error {
	res, err := s.exec(ctx, `UPDATE notes SET note_type = $7, fields = $3, tags = $4, updated_at = $5, version = version + 1
WHERE user_id = $1 AND id = $2 AND version = $6`, userID, n.ID, stringsJSON(n.Fields), stringsJSON(n.Tags), ms(n.UpdatedAt), n.Version, n.NoteType)
	c, err := s.affected(ctx, res, err, "update note")
	if err != nil {
		return err
	}
	if c == 0 {
		ok, err := s.exists(ctx, "find note", `SELECT 1 FROM notes WHERE user_id = $1 AND id = $2`, userID, n.ID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("note")
		}
		return contracts.Errorf(contracts.KindConflict, "the note changed since it was read; reload it and retry")
	}
	return nil
}

// CardsOfNotes returns the notes' cards, ordered by note and ord.
func (s noteStore) CardsOfNotes(ctx context.Context, userID string, noteIDs []string) ([]ports.CardRow, error) {
	out := []ports.CardRow{}
	for _, chunk := range chunks(dedupe(noteIDs), inChunk) {
		var a args
		q := `SELECT ` + cardCols + ` FROM cards c WHERE c.user_id = ` + a.add(userID) + ` AND c.note_id IN (` + list(&a, chunk) + `) ORDER BY c.note_id, c.ord`
		cards, err := s.scanCards(ctx, "cards of notes", q, a...)
		if err != nil {
			return nil, err
		}
		out = append(out, cards...)
	}
	return out, nil
}
