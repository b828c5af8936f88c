package domain_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoAddNotes (issue 26 §2.1–2.2): add_notes records the cards it
// adds, so undo_changes of its operation moves every card of its notes to
// the trash (statistics as before the call) and undoing the undo brings
// them back.
func TestUndoAddNotes(t *testing.T) { eachStore(t, testUndoAddNotes) }

func testUndoAddNotes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	deck := e.deck(ctx, "Geography")
	e.add(ctx, deck.ID, card("Capital of France?", "Paris"))
	stats := func() string {
		t.Helper()
		st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(st)
		return string(b)
	}
	before := stats()
	res, err := e.svc.Notes.AddNotes(contracts.WithOperationID(ctx, "op-notes"), contracts.AddNotesArgs{DeckID: deck.ID, Notes: []contracts.NewNote{
		{NoteType: contracts.NoteTypeCloze, Fields: map[string]string{"Text": "{{c1::Ankara}} is the capital of {{c2::Turkey}}"}},
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "Capital of Peru?", "Back": "Lima"}},
	}})
	if err != nil || res.Counts[string(contracts.OutcomeCreated)] != 2 {
		t.Fatalf("add_notes: %+v, %v", res, err)
	}
	var added []string
	for _, it := range res.Items {
		added = append(added, it.CardIDs...)
	}
	if len(added) != 3 {
		t.Fatalf("the notes made cards %v, want 3", added)
	}
	trash := func() []string {
		t.Helper()
		page, err := e.svc.Trash.ListTrash(ctx, contracts.ListTrashArgs{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, it := range page.Items {
			s = append(s, it.ID)
		}
		slices.Sort(s)
		return s
	}
	u, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-notes"}})
	if err != nil || u.Undone != 3 || u.Skipped != 0 {
		t.Fatalf("undo of add_notes: %+v, %v", u, err)
	}
	want := slices.Sorted(slices.Values(added))
	if got := trash(); !slices.Equal(got, want) {
		t.Errorf("after the undo the trash holds %v, want the notes' cards %v", got, want)
	}
	for _, id := range added {
		if _, err := e.svc.Cards.GetCard(ctx, id); !contracts.IsKind(err, contracts.KindNotFound) {
			t.Errorf("card %s after the undo: %v, want not found", id, err)
		}
	}
	if got := stats(); got != before {
		t.Errorf("statistics after the undo:\n%s\nwant as before add_notes:\n%s", got, before)
	}
	redo, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{u.OperationID}})
	if err != nil || redo.Undone != 3 {
		t.Fatalf("undo of the undo: %+v, %v", redo, err)
	}
	if got := trash(); len(got) != 0 {
		t.Errorf("after the redo the trash holds %v", got)
	}
	for _, id := range added {
		if c, err := e.svc.Cards.GetCard(ctx, id); err != nil || c.DeckID != deck.ID {
			t.Errorf("card %s after the redo: %+v, %v", id, c, err)
		}
	}
}

// TestUndoCreatedDeck (issue 26 §2.1–2.2): create_deck records the deck it
// creates. An agent's create_deck and add_cards, two operations of one
// credential, undone together ("since"), leave nothing: the cards go to
// the trash first (newest first), then the empty deck; undoing that undo
// brings both back. A deck that got a card from another operation is
// skipped with a reason, and stays.
func TestUndoCreatedDeck(t *testing.T) { eachStore(t, testUndoCreatedDeck) }

func testUndoCreatedDeck(t *testing.T, store string) {
	e := newEnv(t, store)
	u, err := e.svc.Accounts.CreateUser(t.Context(), "ada@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	person, agent := as(u.ID, contracts.CredentialSession), as(u.ID, contracts.CredentialAPIKey)
	e.deck(person, "Mine") // the person's own, before: not the agent's to undo
	e.clock.Advance(time.Minute)
	since, err := contracts.ParseDateOrTime(e.clock.Now().Format(time.RFC3339Nano))
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.svc.Decks.CreateDeck(contracts.WithOperationID(agent, "op-deck"), contracts.CreateDeckArgs{Name: "Agent's"})
	if err != nil {
		t.Fatal(err)
	}
	cards := ids(e.add(contracts.WithOperationID(agent, "op-cards"), d.ID, manyCards("agent", 2)...))
	res, err := e.svc.Undo.UndoChanges(agent, contracts.UndoChangesArgs{Since: &since})
	if err != nil || res.Undone != 3 || res.Skipped != 0 {
		t.Fatalf("undo since: %+v, %v", res, err)
	}
	if last := res.Items[len(res.Items)-1]; last.Kind != contracts.ChangeDeckAdd || last.ID != d.ID {
		t.Errorf("the deck was undone at %+v; want last, after its cards", res.Items)
	}
	if _, err := e.svc.Decks.GetDeck(person, d.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the agent's deck after the undo: %v, want not found", err)
	}
	page, err := e.svc.Trash.ListTrash(person, contracts.ListTrashArgs{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var trashed []string
	for _, it := range page.Items {
		trashed = append(trashed, it.Kind+":"+it.ID)
	}
	if !slices.Contains(trashed, "deck:"+d.ID) {
		t.Errorf("the trash holds %v, want the agent's deck", trashed)
	}
	redo, err := e.svc.Undo.UndoChanges(agent, contracts.UndoChangesArgs{OperationIDs: []string{res.OperationID}})
	if err != nil || redo.Undone == 0 || redo.Skipped != 0 {
		t.Fatalf("undo of the undo: %+v, %v", redo, err)
	}
	if got, err := e.svc.Decks.GetDeck(person, d.ID); err != nil || got.Counts.Total != 2 {
		t.Errorf("the deck after the redo: %+v, %v; want it back with its 2 cards", got.Counts, err)
	}
	for _, id := range cards {
		if _, err := e.svc.Cards.GetCard(person, id); err != nil {
			t.Errorf("card %s after the redo: %v", id, err)
		}
	}

	// A deck the person then put a card in stays, skipped with a reason.
	later, err := e.svc.Decks.CreateDeck(contracts.WithOperationID(agent, "op-later"), contracts.CreateDeckArgs{Name: "Later"})
	if err != nil {
		t.Fatal(err)
	}
	e.add(contracts.WithOperationID(person, "op-person"), later.ID, card("mine", "kept"))
	skip, err := e.svc.Undo.UndoChanges(agent, contracts.UndoChangesArgs{OperationIDs: []string{"op-later"}})
	if err != nil || skip.Undone != 0 || skip.Skipped != 1 {
		t.Fatalf("undo of a deck that got a card: %+v, %v", skip, err)
	}
	if it := skip.Items[0]; it.Status != contracts.UndoSkipped || !strings.Contains(it.Reason, "holds 1 card") {
		t.Errorf("undo item %+v; want skipped, saying the deck holds a card", it)
	}
	if got, err := e.svc.Decks.GetDeck(person, later.ID); err != nil || got.Counts.Total != 1 {
		t.Errorf("the deck that got a card: %+v, %v; want it kept with the card", got.Counts, err)
	}
}
