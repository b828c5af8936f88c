package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func (f *fixture) note(noteType string, fields ...string) ports.NoteRow {
	id := f.id("note")
	return ports.NoteRow{ID: id, NoteType: noteType, GUID: "g-" + id, Fields: fields, Tags: []string{"Tag"}, CreatedAt: f.now, UpdatedAt: f.now}
}

func testNotes(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Notes")
	n := f.note(contracts.NoteTypeBasicReversed, "der Hund", "the dog")
	n.Version = 9 // InsertNotes sets version 1
	must(t, f.s.Notes().InsertNotes(f.ctx, a, []ports.NoteRow{n}))
	got, err := f.s.Notes().GetNotes(f.ctx, a, []string{n.ID, "note-missing"})
	must(t, err)
	want := n
	want.Version = 1
	if len(got) != 1 || got[0].ID != want.ID || got[0].NoteType != want.NoteType || got[0].GUID != want.GUID ||
		!slices.Equal(got[0].Fields, want.Fields) || !slices.Equal(got[0].Tags, want.Tags) || got[0].Version != 1 ||
		!got[0].CreatedAt.Equal(f.now) || !got[0].UpdatedAt.Equal(f.now) {
		t.Fatalf("GetNotes = %+v, want %+v", got, want)
	}
	if got, err := f.s.Notes().GetNotes(f.ctx, b, []string{n.ID}); err != nil || len(got) != 0 {
		t.Errorf("GetNotes as another user = %+v, %v", got, err)
	}

	// The same GUID twice for one user conflicts; another user may reuse it.
	dup := f.note(contracts.NoteTypeBasic, "x", "y")
	dup.GUID = n.GUID
	wantKind(t, f.s.Notes().InsertNotes(f.ctx, a, []ports.NoteRow{dup}), contracts.KindConflict, "InsertNotes with a taken GUID")
	must(t, f.s.Notes().InsertNotes(f.ctx, b, []ports.NoteRow{dup}))

	// Cards carry their note and ord.
	c1, c2 := f.card(d.ID, "der Hund", "the dog"), f.card(d.ID, "the dog", "der Hund")
	c1.NoteID, c1.Ord = n.ID, 0
	c2.NoteID, c2.Ord = n.ID, 1
	plain := f.card(d.ID, "plain", "card")
	f.insert(a, c2, plain, c1)
	cards, err := f.s.Notes().CardsOfNotes(f.ctx, a, []string{n.ID})
	must(t, err)
	if len(cards) != 2 || cards[0].ID != c1.ID || cards[1].ID != c2.ID || cards[1].NoteID != n.ID || cards[1].Ord != 1 {
		t.Fatalf("CardsOfNotes = %+v", cards)
	}
	if p := f.get(a, plain.ID); p.NoteID != "" || p.Ord != 0 {
		t.Errorf("a card without a note reads note %q ord %d", p.NoteID, p.Ord)
	}
	if cards, err := f.s.Notes().CardsOfNotes(f.ctx, b, []string{n.ID}); err != nil || len(cards) != 0 {
		t.Errorf("CardsOfNotes as another user = %d cards, %v", len(cards), err)
	}

	// UpdateNote: optimistic version, not found for another user.
	upd := want
	upd.Fields = []string{"der Hund", "the dog (m.)"}
	upd.Tags = []string{"Tag", "B1"}
	upd.UpdatedAt = f.now.Add(time.Minute)
	must(t, f.s.Notes().UpdateNote(f.ctx, a, upd))
	wantKind(t, f.s.Notes().UpdateNote(f.ctx, a, upd), contracts.KindConflict, "UpdateNote with a stale version")
	wantKind(t, f.s.Notes().UpdateNote(f.ctx, b, upd), contracts.KindNotFound, "UpdateNote of another user's note")
	got, err = f.s.Notes().GetNotes(f.ctx, a, []string{n.ID})
	must(t, err)
	if len(got) != 1 || got[0].Version != 2 || !slices.Equal(got[0].Fields, upd.Fields) || !slices.Equal(got[0].Tags, upd.Tags) || !got[0].UpdatedAt.Equal(upd.UpdatedAt) {
		t.Errorf("after UpdateNote: %+v", got)
	}
}
