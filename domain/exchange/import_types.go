package exchange

import (
	"context"
	"fmt"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// importedType is how a package's note type is imported: the note model
// its notes render with, what their NoteType holds (a stock name or a
// stored type's id), and whether it was converted to a stock type.
type importedType struct {
	t         notes.Type
	ref       string
	converted string // why it was converted to a stock type; "" when it was not
	// legacy is, for a type kept as the account's own, the stock type an
	// import converted it to before own note types were kept: a note of
	// the package here with that type was imported then, and moves to
	// the kept type.
	legacy string
}

// planTypes decides, for each note type of the package, whether it is a
// stock type or one of the account's own: a type of its own is kept with
// its fields, templates and CSS, matched to a type the account has by
// Anki model id and then by name (and kind), and stored (or updated) when
// the import publishes. A type whose templates cannot be kept (they break
// a rule of the template syntax or its limits) is converted to a stock
// type by field position, as a note type without templates would be.
func (im *importer) planTypes(ctx context.Context) (map[int64]importedType, error) {
	out := map[int64]importedType{}
	var have []ports.NoteTypeRow
	loaded := false
	taken := map[string]bool{} // stored type ids this import already claims
	for _, at := range im.head.NoteTypes {
		st, conv := importNoteType(at)
		if !conv {
			out[at.Key] = importedType{t: st, ref: st.Name}
			continue
		}
		t := library.TypeOfAnki(at)
		if err := t.Validate(); err != nil {
			why := fmt.Sprintf("note type %q could not be kept (%v): its notes were converted to %q by field position", at.Name, err, st.Name)
			out[at.Key] = importedType{t: st, ref: st.Name, converted: truncateRunes(why, 300)}
			continue
		}
		if !loaded {
			var err error
			if have, err = library.AllNoteTypes(ctx, im.s.Store, im.uid); err != nil {
				return nil, err
			}
			loaded = true
		}
		row := matchStoredType(have, at, taken)
		if row.ID == "" {
			row = ports.NoteTypeRow{ID: ports.NoteTypeIDPrefix + im.s.IDs.NewID(), CreatedAt: im.now}
		}
		taken[row.ID] = true
		row.Name, row.Kind, row.Fields, row.Templates, row.CSS = t.Name, string(t.Kind), t.Fields, library.TemplateRows(t), t.CSS
		row.AnkiID, row.UpdatedAt = at.Key, im.now
		im.types = append(im.types, row)
		out[at.Key] = importedType{t: t, ref: row.ID, legacy: st.Name}
	}
	return out, nil
}

// matchStoredType finds the stored type a package's type updates: the
// one with its Anki model id, else one of its name and kind; none (a zero
// row) when there is no such type or it is taken by another of the
// package's types.
func matchStoredType(have []ports.NoteTypeRow, at ports.AnkiNoteType, taken map[string]bool) ports.NoteTypeRow {
	kind := string(notes.KindStandard)
	if at.Cloze {
		kind = string(notes.KindCloze)
	}
	for _, r := range have {
		if r.AnkiID == at.Key && at.Key != 0 && r.Kind == kind && !taken[r.ID] {
			return r
		}
	}
	for _, r := range have {
		if strings.EqualFold(r.Name, strings.TrimSpace(at.Name)) && r.Kind == kind && !taken[r.ID] {
			return r
		}
	}
	return ports.NoteTypeRow{}
}

// publishTypes stores the package's own note types, in tx.
func (im *importer) publishTypes(ctx context.Context, tx ports.Stores) error {
	for _, r := range im.types {
		if err := tx.NoteTypes().PutNoteType(ctx, im.uid, r); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return contracts.Errorf(contracts.KindConflict, "note type %q could not be stored; start the import again", r.Name)
			}
			return kernel.Fail(err)
		}
	}
	return nil
}
