package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testNoteTypes(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	vocab := ports.NoteTypeRow{ID: ports.NoteTypeIDPrefix + f.id("vocab"), Name: "Vocab", Kind: "standard",
		Fields: []string{"Word", "Meaning", "Example", "Audio"},
		Templates: []ports.NoteTemplateRow{
			{Name: "Recognise", Front: "{{Word}}", Back: "{{FrontSide}}<hr id=answer>{{Meaning}}"},
			{Name: "Example", Front: "{{#Example}}{{Example}}{{/Example}}", Back: "{{Word}}: {{Meaning}}"}},
		CSS: ".card { color: black; }", AnkiID: 1700000000123, CreatedAt: f.now, UpdatedAt: f.now}
	cloze := ports.NoteTypeRow{ID: ports.NoteTypeIDPrefix + f.id("cloze"), Name: "My Cloze", Kind: "cloze",
		Fields: []string{"Text", "Source"}, Templates: []ports.NoteTemplateRow{{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}} {{Source}}"}},
		AnkiID: 1700000000456, CreatedAt: f.now, UpdatedAt: f.now}
	must(t, f.s.NoteTypes().PutNoteType(f.ctx, a, vocab))
	must(t, f.s.NoteTypes().PutNoteType(f.ctx, a, cloze))

	got, err := f.s.NoteTypes().GetNoteTypes(f.ctx, a, []string{vocab.ID, "nt_missing", vocab.ID})
	must(t, err)
	if len(got) != 1 || !reflect.DeepEqual(got[0], vocab) {
		t.Fatalf("GetNoteTypes = %+v, want %+v", got, vocab)
	}
	if got, err := f.s.NoteTypes().GetNoteTypes(f.ctx, b, []string{vocab.ID, cloze.ID}); err != nil || len(got) != 0 {
		t.Errorf("GetNoteTypes as another user = %+v, %v", got, err)
	}

	// Listing pages by id and sees only the user's own.
	first, second := vocab, cloze
	if second.ID < first.ID {
		first, second = second, first
	}
	page, err := f.s.NoteTypes().ListNoteTypes(f.ctx, a, "", 1)
	must(t, err)
	if len(page) != 1 || page[0].ID != first.ID {
		t.Fatalf("ListNoteTypes first page = %+v, want %s", page, first.ID)
	}
	page, err = f.s.NoteTypes().ListNoteTypes(f.ctx, a, page[0].ID, 10)
	must(t, err)
	if len(page) != 1 || !reflect.DeepEqual(page[0], second) {
		t.Fatalf("ListNoteTypes second page = %+v, want %+v", page, second)
	}
	if page, err := f.s.NoteTypes().ListNoteTypes(f.ctx, b, "", 10); err != nil || len(page) != 0 {
		t.Errorf("ListNoteTypes as another user = %+v, %v", page, err)
	}

	// Putting it again replaces everything but its creation time.
	later := f.now.Add(time.Hour)
	upd := vocab
	upd.Name, upd.Fields, upd.CSS, upd.AnkiID = "Vocab 2", []string{"Word", "Meaning"}, "", 42
	upd.Templates = []ports.NoteTemplateRow{{Name: "Only", Front: "{{Word}}!", Back: "{{Meaning}}"}}
	upd.CreatedAt, upd.UpdatedAt = later, later
	must(t, f.s.NoteTypes().PutNoteType(f.ctx, a, upd))
	got, err = f.s.NoteTypes().GetNoteTypes(f.ctx, a, []string{vocab.ID})
	must(t, err)
	want := upd
	want.CreatedAt = f.now
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("after PutNoteType again = %+v, want %+v", got, want)
	}

	// Another user cannot take or overwrite the id.
	steal := upd
	steal.Name = "Stolen"
	wantKind(t, f.s.NoteTypes().PutNoteType(f.ctx, b, steal), contracts.KindConflict, "PutNoteType with another user's id")
	got, err = f.s.NoteTypes().GetNoteTypes(f.ctx, a, []string{vocab.ID})
	must(t, err)
	if len(got) != 1 || got[0].Name != "Vocab 2" {
		t.Errorf("another user's put changed the type: %+v", got)
	}

	// A note names its stored type by id.
	n := f.note(vocab.ID, "der Hund", "the dog", "", "")
	must(t, f.s.Notes().InsertNotes(f.ctx, a, []ports.NoteRow{n}))
	notes, err := f.s.Notes().GetNotes(f.ctx, a, []string{n.ID})
	must(t, err)
	if len(notes) != 1 || notes[0].NoteType != vocab.ID {
		t.Errorf("note of a stored type reads %+v", notes)
	}

	// Deleting the account deletes its note types.
	must(t, f.s.Users().DeleteUser(f.ctx, a, f.id("del"), f.now))
	must(t, f.s.NoteTypes().PutNoteType(f.ctx, b, ports.NoteTypeRow{ID: ports.NoteTypeIDPrefix + f.id("b"), Name: "B", Kind: "standard",
		Fields: []string{"F"}, Templates: []ports.NoteTemplateRow{{Name: "1", Front: "{{F}}", Back: "{{F}}"}}, CreatedAt: f.now, UpdatedAt: f.now}))
	must(t, f.s.NoteTypes().PutNoteType(f.ctx, b, steal)) // the id is free again
}
