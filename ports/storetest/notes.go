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
	upd.NoteType = ports.NoteTypeIDPrefix + "own" // a note moves to another type (a re-import of a converted note)
	upd.UpdatedAt = f.now.Add(time.Minute)
	must(t, f.s.Notes().UpdateNote(f.ctx, a, upd))
	wantKind(t, f.s.Notes().UpdateNote(f.ctx, a, upd), contracts.KindConflict, "UpdateNote with a stale version")
	wantKind(t, f.s.Notes().UpdateNote(f.ctx, b, upd), contracts.KindNotFound, "UpdateNote of another user's note")
	got, err = f.s.Notes().GetNotes(f.ctx, a, []string{n.ID})
	must(t, err)
	if len(got) != 1 || got[0].Version != 2 || !slices.Equal(got[0].Fields, upd.Fields) || !slices.Equal(got[0].Tags, upd.Tags) || !got[0].UpdatedAt.Equal(upd.UpdatedAt) ||
		got[0].NoteType != upd.NoteType || got[0].GUID != want.GUID {
		t.Errorf("after UpdateNote: %+v", got)
	}
}

func testListNotes(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	var mine []ports.NoteRow
	for i := range 5 {
		mine = append(mine, f.note(contracts.NoteTypeBasic, "front "+string(rune('A'+i)), "back"))
	}
	must(t, f.s.Notes().InsertNotes(f.ctx, a, mine))
	theirs := f.note(contracts.NoteTypeCloze, "{{c1::Paris}} is in France", "")
	must(t, f.s.Notes().InsertNotes(f.ctx, b, []ports.NoteRow{theirs}))
	want := make([]string, len(mine))
	for i, n := range mine {
		want[i] = n.ID
	}
	slices.Sort(want)

	// Pages of two, by id, until a short page: every note once, none of b's.
	var got []string
	after := ""
	for range 10 {
		page, err := f.s.Notes().ListNotes(f.ctx, a, after, 2)
		must(t, err)
		for _, n := range page {
			got = append(got, n.ID)
			if n.ID == theirs.ID {
				t.Errorf("ListNotes of user a returned user b's note")
			}
		}
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(got, want) {
		t.Errorf("ListNotes pages = %v, want %v", got, want)
	}

	all, err := f.s.Notes().ListNotes(f.ctx, a, "", 100)
	must(t, err)
	if len(all) != 5 || all[0].ID != want[0] || all[0].Version != 1 || len(all[0].Fields) != 2 || !slices.Equal(all[0].Tags, []string{"Tag"}) ||
		!all[0].CreatedAt.Equal(f.now) || all[0].GUID == "" || all[0].NoteType != contracts.NoteTypeBasic {
		t.Errorf("ListNotes = %+v", all)
	}
	if rest, err := f.s.Notes().ListNotes(f.ctx, a, want[4], 100); err != nil || len(rest) != 0 {
		t.Errorf("ListNotes after the last note = %+v, %v", rest, err)
	}
	if none, err := f.s.Notes().ListNotes(f.ctx, a, "", 0); err != nil || none == nil || len(none) != 0 {
		t.Errorf("ListNotes with limit 0 = %#v, %v; want an empty slice", none, err)
	}
	if bs, err := f.s.Notes().ListNotes(f.ctx, b, "", 100); err != nil || len(bs) != 1 || bs[0].ID != theirs.ID || bs[0].Fields[0] != theirs.Fields[0] {
		t.Errorf("ListNotes of user b = %+v, %v", bs, err)
	}
}
