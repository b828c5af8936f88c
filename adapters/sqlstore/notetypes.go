package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/takhtabush/takhtabush/ports"
)

// noteTypeStore is the note type store on one handle.
type noteTypeStore struct{ *handle }

// NoteTypes returns the note type store on h.
func (h *handle) NoteTypes() ports.NoteTypeStore { return noteTypeStore{h} }

// NoteTypes returns the note type store outside any transaction.
func (s *Store) NoteTypes() ports.NoteTypeStore { return s.root.NoteTypes() }

// noteTypeCols are the columns scanNoteTypes reads, in order.
const noteTypeCols = `id, name, kind, fields, templates, css, anki_id, created_at, updated_at`

// PutNoteType inserts the user's note type or replaces the one with its id.
func (s noteTypeStore) PutNoteType(ctx context.Context, userID string, t ports.NoteTypeRow) error {
	tpls := t.Templates
	if tpls == nil {
		tpls = []ports.NoteTemplateRow{}
	}
	tj, err := jsonText(tpls)
	if err != nil {
		return s.s.wrap(ctx, err, "encode note type")
	}
	_, err = s.exec(ctx, `INSERT INTO note_types (id, user_id, name, kind, fields, templates, css, anki_id, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (user_id, id) DO UPDATE SET name = excluded.name, kind = excluded.kind, fields = excluded.fields,
templates = excluded.templates, css = excluded.css, anki_id = excluded.anki_id, updated_at = excluded.updated_at`,
		t.ID, userID, t.Name, t.Kind, stringsJSON(t.Fields), tj, t.CSS, t.AnkiID, ms(t.CreatedAt), ms(t.UpdatedAt))
	return s.fail(ctx, err, "put note type", failMsgs{unique: "the note type id is taken"})
}

// GetNoteTypes returns the user's note types with these ids.
func (s noteTypeStore) GetNoteTypes(ctx context.Context, userID string, ids []string) ([]ports.NoteTypeRow, error) {
	out := []ports.NoteTypeRow{}
	for _, chunk := range chunks(dedupe(ids), inChunk) {
		var a args
		q := `SELECT ` + noteTypeCols + ` FROM note_types WHERE user_id = ` + a.add(userID) + ` AND id IN (` + list(&a, chunk) + `)`
		got, err := s.scanNoteTypes(ctx, q, a...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// ListNoteTypes returns a page of the user's note types by id.
func (s noteTypeStore) ListNoteTypes(ctx context.Context, userID, after string, limit int) ([]ports.NoteTypeRow, error) {
	return s.scanNoteTypes(ctx, `SELECT `+noteTypeCols+` FROM note_types WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
		userID, after, limit)
}

func (s noteTypeStore) scanNoteTypes(ctx context.Context, q string, a ...any) ([]ports.NoteTypeRow, error) {
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "read note types")
	}
	defer rows.Close()
	out := []ports.NoteTypeRow{}
	for rows.Next() {
		var t ports.NoteTypeRow
		var fields, tpls string
		var created, updated int64
		if err := rows.Scan(&t.ID, &t.Name, &t.Kind, &fields, &tpls, &t.CSS, &t.AnkiID, &created, &updated); err != nil {
			return nil, s.s.wrap(ctx, err, "read note types")
		}
		if t.Fields, err = parseStrings(fields); err != nil {
			return nil, s.s.wrap(ctx, err, "read note types")
		}
		if err := json.Unmarshal([]byte(tpls), &t.Templates); err != nil {
			return nil, s.s.wrap(ctx, err, "read note types")
		}
		t.CreatedAt, t.UpdatedAt = fromMs(created), fromMs(updated)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "read note types")
	}
	return out, nil
}
