package library

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// maxNoteTypePage bounds one page of the account's stored note types.
const maxNoteTypePage = 200

// TypeOfRow is the note model of a stored note type.
func TypeOfRow(r ports.NoteTypeRow) notes.Type {
	t := notes.Type{Name: r.Name, Kind: notes.Kind(r.Kind), Fields: r.Fields, CSS: r.CSS}
	for _, tp := range r.Templates {
		t.Templates = append(t.Templates, notes.Template{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return t
}

// TemplateRows are a note type's templates as stored.
func TemplateRows(t notes.Type) []ports.NoteTemplateRow {
	out := make([]ports.NoteTemplateRow, 0, len(t.Templates))
	for _, tp := range t.Templates {
		out = append(out, ports.NoteTemplateRow{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return out
}

// TypeOfAnki is the note model of a package's note type.
func TypeOfAnki(at ports.AnkiNoteType) notes.Type {
	t := notes.Type{Name: strings.TrimSpace(at.Name), Kind: notes.KindStandard, Fields: at.Fields, CSS: at.CSS}
	if at.Cloze {
		t.Kind = notes.KindCloze
	}
	for _, tp := range at.Templates {
		t.Templates = append(t.Templates, notes.Template{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	return t
}

// IsStoredType reports whether a note's NoteType names a stored type.
func IsStoredType(ref string) bool { return strings.HasPrefix(ref, ports.NoteTypeIDPrefix) }

// resolveNoteType returns the note type a note's NoteType names: a stock
// type, or one of the user's stored types. Not found when a stored type is
// missing; invalid for an unknown stock name.
func resolveNoteType(ctx context.Context, st ports.Stores, uid, ref string) (notes.Type, error) {
	if !IsStoredType(ref) {
		t, err := NoteType(ref)
		if err != nil {
			return notes.Type{}, contracts.Errorf(contracts.KindInvalid, "%v", err)
		}
		return t, nil
	}
	rows, err := st.NoteTypes().GetNoteTypes(ctx, uid, []string{ref})
	if err != nil {
		return notes.Type{}, kernel.Fail(err)
	}
	if len(rows) == 0 {
		return notes.Type{}, contracts.Errorf(contracts.KindNotFound, "the note's type is gone")
	}
	return TypeOfRow(rows[0]), nil
}

// AllNoteTypes returns the user's stored note types.
func AllNoteTypes(ctx context.Context, st ports.Stores, uid string) ([]ports.NoteTypeRow, error) {
	var out []ports.NoteTypeRow
	for after := ""; ; {
		page, err := st.NoteTypes().ListNoteTypes(ctx, uid, after, maxNoteTypePage)
		if err != nil {
			return nil, kernel.Fail(err)
		}
		out = append(out, page...)
		if len(page) < maxNoteTypePage {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// NoteTypes implements ports.NoteService.
func (s *NoteService) NoteTypes(ctx context.Context) ([]contracts.NoteTypeInfo, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	own, err := AllNoteTypes(ctx, s.Store, uid)
	if err != nil {
		return nil, err
	}
	out := make([]contracts.NoteTypeInfo, 0, len(own)+len(contracts.StockNoteTypes))
	for _, t := range notes.Stock() {
		out = append(out, contracts.NoteTypeInfo{Name: t.Name, Cloze: t.Kind == notes.KindCloze, Fields: slices.Clone(t.Fields)})
	}
	slices.SortStableFunc(own, func(a, b ports.NoteTypeRow) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	for _, r := range own {
		out = append(out, contracts.NoteTypeInfo{ID: r.ID, Name: r.Name, Cloze: r.Kind == string(notes.KindCloze), Fields: slices.Clone(r.Fields)})
	}
	return out, nil
}

// maxTypeProblems bounds the problems one add_notes error lists, and
// maxTypesListed the account's own types an unknown-type problem names.
const (
	maxTypeProblems = 20
	maxTypesListed  = 20
)

// addedType is the note type an add_notes note names: its model and what
// the note's NoteType stores (a stock name or a stored type's id).
type addedType struct {
	t   notes.Type
	ref string
}

// resolveAddTypes resolves the note types add_notes' notes name — a stock
// type by name, or one of the user's own by id or exact name — and checks
// each note's field names against its type: a field the type lacks, or
// none of the fields its cards' questions show, is a mistake in the call.
// Any such mistake fails the whole call (invalid, nothing written) with
// one line per note saying what to send instead.
func resolveAddTypes(ctx context.Context, st ports.Stores, uid string, in []contracts.NewNote) ([]addedType, error) {
	out := make([]addedType, len(in))
	var own []ports.NoteTypeRow
	loaded := false
	var problems []string
	problem := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("notes[%d]: ", i)+fmt.Sprintf(format, args...))
	}
	for i, n := range in {
		ref := strings.TrimSpace(n.NoteType)
		if t, ok := notes.StockByName(ref); ok {
			out[i] = addedType{t: t, ref: t.Name}
		} else {
			if !loaded {
				var err error
				if own, err = AllNoteTypes(ctx, st, uid); err != nil {
					return nil, err
				}
				loaded = true
			}
			var hits []ports.NoteTypeRow
			for _, r := range own {
				if r.ID == ref || r.Name == ref {
					hits = append(hits, r)
				}
			}
			switch len(hits) {
			case 1:
				out[i] = addedType{t: TypeOfRow(hits[0]), ref: hits[0].ID}
			case 0:
				problem(i, "unknown note type %q; %s", n.NoteType, typeChoices(own))
				continue
			default:
				ids := make([]string, len(hits))
				for j, r := range hits {
					ids[j] = r.ID
				}
				problem(i, "you have %d note types named %q; name one by its id: %s", len(hits), ref, strings.Join(ids, ", "))
				continue
			}
		}
		t := out[i].t
		var unknown []string
		for name := range n.Fields {
			if !slices.Contains(t.Fields, name) {
				unknown = append(unknown, strconv.Quote(name))
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			problem(i, "note type %q has no field %s; its fields are %s", t.Name, strings.Join(unknown, ", "), strings.Join(t.Fields, ", "))
			continue
		}
		q := t.QuestionFields()
		if len(q) > 0 && !slices.ContainsFunc(q, func(f string) bool { return strings.TrimSpace(n.Fields[f]) != "" }) {
			problem(i, "a %q note needs %s (what its cards ask); its fields are %s", t.Name, orList(q), strings.Join(t.Fields, ", "))
		}
	}
	if len(problems) == 0 {
		return out, nil
	}
	msg := problems
	if len(msg) > maxTypeProblems {
		msg = append(slices.Clone(msg[:maxTypeProblems]), fmt.Sprintf("… and %d more", len(problems)-maxTypeProblems))
	}
	return nil, contracts.Errorf(contracts.KindInvalid, "nothing was added: %s", strings.Join(msg, "\n"))
}

// typeChoices says which note types add_notes takes: the stock ones and
// the user's own (by name and id, with their fields).
func typeChoices(own []ports.NoteTypeRow) string {
	s := "give a stock type (" + strings.Join(contracts.StockNoteTypes, ", ") + ")"
	if len(own) == 0 {
		return s + "; you have no note types of your own"
	}
	parts := make([]string, 0, min(len(own), maxTypesListed))
	for _, r := range own[:min(len(own), maxTypesListed)] {
		parts = append(parts, fmt.Sprintf("%q (%s; fields %s)", r.Name, r.ID, strings.Join(r.Fields, ", ")))
	}
	s += " or one of your own by id or name: " + strings.Join(parts, ", ")
	if len(own) > maxTypesListed {
		s += fmt.Sprintf(", and %d more", len(own)-maxTypesListed)
	}
	return s
}

// orList joins names as `"A"`, `"A" or "B"`, `one of "A", "B", "C"`.
func orList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " or " + q[1]
	}
	return "one of " + strings.Join(q, ", ")
}

// styleScope is what CardStyle takes as a scope: one class selector.
var styleScope = regexp.MustCompile(`^\.[a-zA-Z][a-zA-Z0-9_-]{0,63}$`)

// CardStyle returns the CSS of a card's own note type, scoped and made
// safe (notes.ScopeCSS); "" for a card of a stock type or without a note.
func (s *NoteService) CardStyle(ctx context.Context, cardID, scope string) (string, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return "", err
	}
	if !styleScope.MatchString(scope) {
		return "", contracts.Errorf(contracts.KindInvalid, "the scope must be a class selector such as .nt-card")
	}
	if !kernel.PlausibleID(cardID) {
		return "", contracts.Errorf(contracts.KindNotFound, "card %q not found", cardID)
	}
	cards, err := s.Store.Cards().GetCards(ctx, uid, []string{cardID})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(cards) == 0 {
		return "", contracts.Errorf(contracts.KindNotFound, "card %q not found", cardID)
	}
	return NoteTypeCSS(ctx, s.Store, uid, cards[0].NoteID, scope)
}

// NoteTypeCSS returns the CSS of note noteID's type, scoped to scope and
// made safe (notes.ScopeCSS); "" for no note, a note of a stock type, or
// a type without CSS.
func NoteTypeCSS(ctx context.Context, st ports.Stores, uid, noteID, scope string) (string, error) {
	if noteID == "" {
		return "", nil
	}
	ns, err := st.Notes().GetNotes(ctx, uid, []string{noteID})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(ns) == 0 || !IsStoredType(ns[0].NoteType) {
		return "", nil
	}
	types, err := st.NoteTypes().GetNoteTypes(ctx, uid, []string{ns[0].NoteType})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(types) == 0 {
		return "", nil
	}
	return notes.ScopeCSS(types[0].CSS, scope), nil
}
