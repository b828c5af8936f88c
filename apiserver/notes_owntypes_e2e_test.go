package apiserver_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// An account's own note type through the official SDK client: an .apkg
// with a custom type is imported (import_package), get_note of one of its
// notes reports the type's id, name and field names, and add_notes adds
// notes of that type by id and by name whose cards the type's templates
// render; an unknown type or field is an isError result that names what
// to send instead, and nothing is added.
func TestAddNotesOwnTypeOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeMediaWrite)
		cs := connect(t, e.base+"/mcp", bearer(key), "")

		pkg := ports.AnkiPackage{
			Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Decks:   []ports.AnkiDeck{{Key: 1, Name: "Wörter", Settings: contracts.DefaultDeckSettings()}},
			NoteTypes: []ports.AnkiNoteType{{Key: 1700000000001, Name: "Vocab", Fields: []string{"Word", "Meaning", "Example"}, CSS: ".card { color: navy; }",
				Templates: []ports.AnkiTemplate{
					{Name: "Recognise", Front: "{{Word}}", Back: "{{FrontSide}}<hr id=answer>{{Meaning}}{{#Example}}<br><i>{{Example}}</i>{{/Example}}"},
					{Name: "Produce", Front: "{{#Meaning}}Say: {{Meaning}}{{/Meaning}}", Back: "{{FrontSide}}<hr id=answer>{{Word}}"}}}},
			Notes: []ports.AnkiNote{{Key: 10, GUID: "g-hund", TypeKey: 1700000000001, Fields: []string{"der Hund", "the dog", ""}}},
			Cards: []ports.AnkiCard{{Key: 100, NoteKey: 10, DeckKey: 1, Ord: 0, Position: 1}, {Key: 101, NoteKey: 10, DeckKey: 1, Ord: 1, Position: 2}},
		}
		importOverMCP(t, e, cs, pkg)

		var found contracts.CardPage
		call(t, cs, contracts.ToolSearchCards, map[string]any{"query": "der Hund"}, &found)
		if len(found.Items) == 0 || found.Items[0].NoteID == "" {
			t.Fatalf("imported card: %+v", found.Items)
		}
		var imported contracts.Note
		call(t, cs, contracts.ToolGetNote, map[string]any{"noteId": found.Items[0].NoteID}, &imported)
		if imported.NoteType != "Vocab" || !strings.HasPrefix(imported.NoteTypeID, ports.NoteTypeIDPrefix) ||
			!slices.Equal(imported.FieldNames, []string{"Word", "Meaning", "Example"}) || len(imported.Cards) != 2 {
			t.Fatalf("get_note of the imported note = %+v", imported)
		}

		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Neu"}, &deck)
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": []any{
			map[string]any{"noteType": imported.NoteTypeID, "fields": map[string]string{"Word": "die Katze", "Meaning": "the cat", "Example": "Die Katze schläft."}},
			map[string]any{"noteType": imported.NoteType, "fields": map[string]string{"Word": "das Pferd", "Example": "Das Pferd läuft."}},
		}}, &added)
		if added.Counts["created"] != 2 || len(added.Items[0].CardIDs) != 2 || len(added.Items[1].CardIDs) != 1 {
			t.Fatalf("add_notes = %+v", added)
		}
		var katze contracts.Note
		call(t, cs, contracts.ToolGetNote, map[string]any{"noteId": added.Items[0].ID}, &katze)
		if katze.NoteTypeID != imported.NoteTypeID || katze.Fields["Example"] != "Die Katze schläft." ||
			katze.Cards[0].Front != "die Katze" || katze.Cards[1].Front != "Say: the cat" {
			t.Errorf("get_note of the added note = %+v", katze)
		}
		var card contracts.Card
		call(t, cs, contracts.ToolSearchCards, map[string]any{"query": "die Katze", "deckId": deck.ID}, &found)
		for _, c := range found.Items {
			if c.ID == added.Items[0].CardIDs[0] {
				card = c
			}
		}
		if card.Back != "the cat<br><i>Die Katze schläft.</i>" {
			t.Errorf("the Recognise card's back %q (cards %+v)", card.Back, found.Items)
		}

		for _, c := range []struct {
			note map[string]any
			want []string
		}{
			{map[string]any{"noteType": "Vokabel", "fields": map[string]string{"Word": "x"}},
				[]string{`unknown note type "Vokabel"`, `"Vocab" (` + imported.NoteTypeID + `; fields Word, Meaning, Example)`, contracts.NoteTypeCloze}},
			{map[string]any{"noteType": "Vocab", "fields": map[string]string{"Wort": "x"}},
				[]string{`note type "Vocab" has no field "Wort"; its fields are Word, Meaning, Example`}},
			{map[string]any{"noteType": "Vocab", "fields": map[string]string{"Example": "x"}},
				[]string{`a "Vocab" note needs "Word" or "Meaning"`}},
		} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: contracts.ToolAddNotes, Arguments: map[string]any{"deckId": deck.ID, "notes": []any{c.note}}})
			if err != nil || !res.IsError {
				t.Errorf("add_notes %v: %v %+v, want an isError result", c.note, err, res)
				continue
			}
			for _, w := range c.want {
				if text := resultText(res); !strings.Contains(text, w) {
					t.Errorf("add_notes %v: %q lacks %q", c.note, text, w)
				}
			}
		}
		var d contracts.Deck
		call(t, cs, contracts.ToolGetDeck, map[string]any{"deckId": deck.ID}, &d)
		if d.Counts.Total != 3 {
			t.Errorf("deck has %d cards, want the 3 of the added notes", d.Counts.Total)
		}
	})
}

// importOverMCP writes pkg with our package writer and imports it through
// MCP the way an agent does: request_media_upload, PUT, import_package,
// get_job until the job ends; it fails the test unless the job succeeds.
func importOverMCP(t *testing.T, e *env, cs *mcp.ClientSession, pkg ports.AnkiPackage) {
	t.Helper()
	var buf bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(t.Context(), &buf, pkg); err != nil {
		t.Fatal(err)
	}
	in := intent(t, cs, "application/zip", buf.Len(), "package.apkg")
	if code, body := e.put(t, in, buf.String(), nil); code != http.StatusNoContent && code != http.StatusOK {
		t.Fatalf("PUT: %d %s", code, body)
	}
	var job contracts.Job
	call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": in.MediaID}, &job)
	for deadline := time.Now().Add(2 * time.Minute); !job.Status.Final() && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": job.ID}, &job)
	}
	if job.Status != contracts.JobSucceeded {
		t.Fatalf("import job %+v", job)
	}
}
