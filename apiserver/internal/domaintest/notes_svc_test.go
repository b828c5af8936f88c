package domain_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestNotes(t *testing.T) { eachStore(t, testNotes) }

func testNotes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "German")
	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, IdempotencyKey: "n-1", Notes: []contracts.NewNote{
		{NoteType: contracts.NoteTypeBasicReversed, Fields: map[string]string{"Front": "der Hund", "Back": "the dog"}, Tags: []string{"Nouns"}},
		{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": "{{c1::Der}} Hund {{c2::bellt}}."}},
		{NoteType: contracts.NoteTypeBasicOptReversed, Fields: map[string]string{"Front": "das Haus", "Back": "the house"}},
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "der Hund", "Back": "the dog"}}, // its card duplicates note 0's
		{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": "no deletion"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "created,created,created,duplicate,invalid" {
		t.Fatalf("statuses %s: %+v", got, r.Items)
	}
	if n := len(r.Items[0].CardIDs); n != 2 {
		t.Errorf("reversed note made %d cards", n)
	}
	if n := len(r.Items[1].CardIDs); n != 2 {
		t.Errorf("cloze note made %d cards", n)
	}
	if n := len(r.Items[2].CardIDs); n != 1 {
		t.Errorf("optional reversed note without Add Reverse made %d cards", n)
	}
	if r.Items[3].ExistingID != r.Items[0].CardIDs[0] {
		t.Errorf("duplicate names %q, want %q", r.Items[3].ExistingID, r.Items[0].CardIDs[0])
	}
	for i, want := range map[int]string{4: "{{c1::"} {
		if !strings.Contains(r.Items[i].Reason, want) {
			t.Errorf("item %d reason %q, want %q", i, r.Items[i].Reason, want)
		}
	}
	again, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, IdempotencyKey: "n-1", Notes: []contracts.NewNote{
		{NoteType: contracts.NoteTypeBasicReversed, Fields: map[string]string{"Front": "der Hund", "Back": "the dog"}, Tags: []string{"Nouns"}},
		{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": "{{c1::Der}} Hund {{c2::bellt}}."}},
		{NoteType: contracts.NoteTypeBasicOptReversed, Fields: map[string]string{"Front": "das Haus", "Back": "the house"}},
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "der Hund", "Back": "the dog"}},
		{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": "no deletion"}},
	}})
	if err != nil || !again.Replayed || again.Items[0].ID != r.Items[0].ID {
		t.Errorf("replay: %+v %v", again, err)
	}

	cloze := r.Items[1].ID
	n, err := e.svc.Notes.GetNote(ctx, cloze)
	if err != nil {
		t.Fatal(err)
	}
	if n.NoteType != contracts.NoteTypeCloze || !slices.Equal(n.FieldNames, []string{"Text", "Back Extra"}) || n.Fields["Text"] != "{{c1::Der}} Hund {{c2::bellt}}." || len(n.Cards) != 2 {
		t.Fatalf("get note: %+v", n)
	}
	c1, _ := e.svc.Cards.GetCard(ctx, n.Cards[0].ID)
	if c1.NoteID != cloze || c1.Ord != 0 || c1.Front != `<span class="cloze">[...]</span> Hund bellt.` || c1.Back != `<span class="cloze">Der</span> Hund bellt.` {
		t.Errorf("cloze card 1: %+v", c1)
	}

	// Study card 1 of the cloze note, then edit the note: card 1 keeps its
	// schedule, a new deletion c3 makes a new card, tags reach every card.
	s := e.start(ctx, d.ID, nil, nil)
	for s.Current != nil && s.Current.CardID != c1.ID {
		res := e.review(ctx, s.ID, s.Current.CardID, contracts.RatingGood)
		s.Current = res.Next
	}
	if s.Current == nil {
		t.Fatal("card 1 was not in the session")
	}
	e.review(ctx, s.ID, c1.ID, contracts.RatingEasy)
	before, _ := e.svc.Cards.GetCard(ctx, c1.ID)
	if before.State.Phase == contracts.PhaseNew {
		t.Fatalf("card 1 was not reviewed: %+v", before.State)
	}
	tags := []string{"Grammar"}
	u, err := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{
		{ID: cloze, Fields: map[string]string{"Text": "{{c1::Der}} Hund {{c2::bellt}} {{c3::laut}}.", "Back Extra": "bellen = to bark"}, Tags: &tags},
		{ID: "no-such-note", Tags: &tags},
		{ID: r.Items[0].ID, Fields: map[string]string{"Nope": "x"}},
		{ID: r.Items[2].ID, Fields: map[string]string{"Back": "the house"}}, // unchanged content
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(u); got != "updated,not_found,invalid,updated" {
		t.Fatalf("update statuses %s: %+v", got, u.Items)
	}
	after, _ := e.svc.Cards.GetCard(ctx, c1.ID)
	if after.State.Phase != before.State.Phase || !after.State.Due.Equal(before.State.Due) || after.State.Stability != before.State.Stability || after.State.Reps != before.State.Reps {
		t.Errorf("schedule changed: %+v → %+v", before.State, after.State)
	}
	if after.Front != `<span class="cloze">[...]</span> Hund bellt laut.` || !strings.HasSuffix(after.Back, "bellt laut.\nbellen = to bark") || !slices.Equal(after.Tags, tags) {
		t.Errorf("card 1 after edit: %q / %q %v", after.Front, after.Back, after.Tags)
	}
	n, _ = e.svc.Notes.GetNote(ctx, cloze)
	if len(n.Cards) != 3 || n.Cards[2].Ord != 2 || n.Cards[2].Phase != contracts.PhaseNew || !slices.Equal(u.Items[0].CardIDs, []string{n.Cards[0].ID, n.Cards[1].ID, n.Cards[2].ID}) {
		t.Errorf("after adding c3: %+v (outcome %v)", n.Cards, u.Items[0].CardIDs)
	}

	// Removing a deletion leaves its card alone and says so.
	u, err = e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{{ID: cloze, Fields: map[string]string{"Text": "{{c1::Der}} Hund bellt laut."}}}})
	if err != nil || statuses(u) != "updated" || !strings.Contains(u.Items[0].Reason, n.Cards[1].ID) {
		t.Errorf("removing c2: %+v %v", u, err)
	}

	// Another user sees none of it.
	other := e.user("bob@example.com")
	if _, err := e.svc.Notes.GetNote(other, cloze); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("another user's note: %v", err)
	}
	u, err = e.svc.Notes.UpdateNotes(other, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{{ID: cloze, Tags: &tags}}})
	if err != nil || statuses(u) != "not_found" {
		t.Errorf("another user's update: %+v %v", u, err)
	}
	_, err = e.svc.Notes.AddNotes(other, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: "Basic", Fields: map[string]string{"Front": "a", "Back": "b"}}}})
	wantKind(t, err, contracts.KindNotFound)
}

func TestNoteCardsEditedThroughTheNote(t *testing.T) {
	e := newEnv(t, onSQLite)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "D")
	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: "Basic", Fields: map[string]string{"Front": "a", "Back": "b"}}}})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Items[0].CardIDs[0]
	front, yes := "changed", true
	u, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: id, Front: &front}, {ID: id, Suspended: &yes}}})
	if err != nil {
		t.Fatal(err)
	}
	if statuses(u) != "invalid,updated" || !strings.Contains(u.Items[0].Reason, "update_notes") {
		t.Errorf("%+v", u.Items)
	}
}
