package apiserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// Notes through the official SDK client: add_notes makes a cloze note's
// cards, get_note reads it back, update_notes re-makes them, and the audit
// trail records both writes.
func TestNotesOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, "create_deck", map[string]any{"name": "Geo"}, &deck)
		var added contracts.BulkResult
		call(t, cs, "add_notes", map[string]any{"deckId": deck.ID, "notes": []any{
			map[string]any{"noteType": "Cloze", "fields": map[string]string{"Text": "{{c1::Ankara}} is the capital of {{c2::Turkey}}"}, "tags": []string{"Europe"}},
		}}, &added)
		if added.Counts["created"] != 1 || len(added.Items[0].CardIDs) != 2 {
			t.Fatalf("add_notes = %+v", added)
		}
		var note contracts.Note
		call(t, cs, "get_note", map[string]any{"noteId": added.Items[0].ID}, &note)
		if note.NoteType != "Cloze" || len(note.Cards) != 2 || note.Cards[1].Front != `Ankara is the capital of <span class="cloze">[...]</span>` {
			t.Fatalf("get_note = %+v", note)
		}
		var updated contracts.BulkResult
		call(t, cs, "update_notes", map[string]any{"updates": []any{
			map[string]any{"id": note.ID, "fields": map[string]string{"Back Extra": "since 1923"}},
		}}, &updated)
		if updated.Counts["updated"] != 1 {
			t.Fatalf("update_notes = %+v", updated)
		}
		// A field the type lacks is a tool error the model can act on.
		bad, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add_notes", Arguments: map[string]any{"deckId": deck.ID, "notes": []any{
			map[string]any{"noteType": "Basic", "fields": map[string]string{"Question": "x"}},
		}}})
		if err != nil || !bad.IsError || !strings.Contains(resultText(bad), `notes[0]: note type "Basic" has no field "Question"; its fields are Front, Back`) {
			t.Errorf("bad field: %v %+v", err, bad)
		}
		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, ev := range events {
			actions = append(actions, ev.Action)
		}
		if !slices.Contains(actions, "notes.add") || !slices.Contains(actions, "notes.update") {
			t.Errorf("audit actions %v", actions)
		}
	})
}
