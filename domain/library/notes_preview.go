package library

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
)

// PreviewNote renders the cards a note of noteType (a stock type's name or
// the id of one of the user's own) with fields (by name) would make, as
// AddNotes makes them, and stores nothing: the editor's live preview.
// Invalid for an unknown stock type, a field the type lacks or a value
// over the limits; not found for an own type that is gone.
func (s *NoteService) PreviewNote(ctx context.Context, noteType string, fields map[string]string) ([]contracts.NewCard, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	t, err := resolveNoteType(ctx, s.Store, uid, noteType)
	if err != nil {
		return nil, err
	}
	values, err := fieldsByName(t, make([]string, len(t.Fields)), fields)
	if err != nil {
		return nil, contracts.Errorf(contracts.KindInvalid, "%v", err)
	}
	made, err := MakeCards(t, values, nil, "")
	if err != nil {
		return nil, contracts.Errorf(contracts.KindInvalid, "%v", err)
	}
	out := make([]contracts.NewCard, len(made))
	for i, m := range made {
		out[i] = m.Card
	}
	return out, nil
}
