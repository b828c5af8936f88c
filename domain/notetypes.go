package domain

import (
	"context"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// maxNoteTypePage bounds one page of the account's stored note types.
const maxNoteTypePage = 200

// typeOfRow is the note model of a stored note type.
func typeOfRow(r ports.NoteTypeRow) notes.Type {
	t := notes.Type{Name: r.Name, Kind: notes.Kind(r.Kind), Fields: r.Fields, CSS: r.CSS}
	for _, tp := range r.Templates {
		t.Templates = append(t.Templates, notes.Template{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return t
}

// templateRows are a note type's templates as stored.
func templateRows(t notes.Type) []ports.NoteTemplateRow {
	out := make([]ports.NoteTemplateRow, 0, len(t.Templates))
	for _, tp := range t.Templates {
		out = append(out, ports.NoteTemplateRow{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return out
}

// typeOfAnki is the note model of a package's note type.
func typeOfAnki(at ports.AnkiNoteType) notes.Type {
	t := notes.Type{Name: strings.TrimSpace(at.Name), Kind: notes.KindStandard, Fields: at.Fields, CSS: at.CSS}
	if at.Cloze {
		t.Kind = notes.KindCloze
	}
	for _, tp := range at.Templates {
		t.Templates = append(t.Templates, notes.Template{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return t
}

// isStoredType reports whether a note's NoteType names a stored type.
func isStoredType(ref string) bool { return strings.HasPrefix(ref, ports.NoteTypeIDPrefix) }

// resolveNoteType returns the note type a note's NoteType names: a stock
// type, or one of the user's stored types. Not found when a stored type is
// missing; invalid for an unknown stock name.
func resolveNoteType(ctx context.Context, st ports.Stores, uid, ref string) (notes.Type, error) {
	if !isStoredType(ref) {
		t, err := noteType(ref)
		if err != nil {
			return notes.Type{}, contracts.Errorf(contracts.KindInvalid, "%v", err)
		}
		return t, nil
	}
	rows, err := st.NoteTypes().GetNoteTypes(ctx, uid, []string{ref})
	if err != nil {
		return notes.Type{}, fail(err)
	}
	if len(rows) == 0 {
		return notes.Type{}, contracts.Errorf(contracts.KindNotFound, "the note's type is gone")
	}
	return typeOfRow(rows[0]), nil
}

// allNoteTypes returns the user's stored note types.
func allNoteTypes(ctx context.Context, st ports.Stores, uid string) ([]ports.NoteTypeRow, error) {
	var out []ports.NoteTypeRow
	for after := ""; ; {
		page, err := st.NoteTypes().ListNoteTypes(ctx, uid, after, maxNoteTypePage)
		if err != nil {
			return nil, fail(err)
		}
		out = append(out, page...)
		if len(page) < maxNoteTypePage {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}
