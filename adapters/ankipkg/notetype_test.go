package ankipkg_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// A note type of a user's own (not a stock type) is written with its own
// model: the reader gets back its model id, fields, both templates, CSS
// and cloze kind exactly, and its notes and cards.
func TestRoundTripOwnNoteTypes(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	in := ports.AnkiPackage{
		Created: t0.Add(-30 * 24 * time.Hour),
		Decks:   []ports.AnkiDeck{{Key: 100, Name: "Words", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{
			{Key: 1700000000001, Name: "Vocab", Fields: []string{"Word", "Meaning", "Example", "Audio"}, CSS: ".card { font-size: 20px; }\n.word { color: navy; }",
				Templates: []ports.AnkiTemplate{
					{Name: "Recognise", Front: `<div class="word">{{Word}}</div>{{#Audio}}{{Audio}}{{/Audio}}`, Back: "{{FrontSide}}<hr id=answer>{{Meaning}}{{^Example}}<br>(no example){{/Example}}"},
					{Name: "Example", Front: "{{#Example}}{{text:Example}}{{/Example}}", Back: "{{FrontSide}}<hr id=answer>{{hint:Word}}: {{Meaning}}"}}},
			{Key: 1700000000002, Name: "Cloze with source", Cloze: true, Fields: []string{"Text", "Source"}, CSS: ".cloze { color: red; }",
				Templates: []ports.AnkiTemplate{{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>{{Source}}"}}},
		},
		Notes: []ports.AnkiNote{
			{Key: 300, GUID: "g-vocab", TypeKey: 1700000000001, Fields: []string{"die Katze", "the cat", "Die <i>Katze</i> schläft.", "[sound:katze.mp3]"}, Tags: []string{"de"}, Modified: t0},
			{Key: 301, GUID: "g-source", TypeKey: 1700000000002, Fields: []string{"{{c1::Berlin}} is in {{c2::Germany}}", "Atlas"}, Modified: t0},
		},
		Cards: []ports.AnkiCard{
			{Key: 400, NoteKey: 300, DeckKey: 100, Ord: 0, State: contracts.CardState{Phase: contracts.PhaseNew}, Position: 1, Modified: t0},
			{Key: 401, NoteKey: 300, DeckKey: 100, Ord: 1, State: contracts.CardState{Phase: contracts.PhaseNew}, Position: 2, Modified: t0},
			{Key: 402, NoteKey: 301, DeckKey: 100, Ord: 1, State: contracts.CardState{Phase: contracts.PhaseNew}, Position: 3, Modified: t0},
		},
	}
	out := read(t, write(t, in))
	if !reflect.DeepEqual(out.NoteTypes, in.NoteTypes) {
		t.Errorf("note types = %+v\nwant %+v", out.NoteTypes, in.NoteTypes)
	}
	if !reflect.DeepEqual(out.Notes, in.Notes) {
		t.Errorf("notes = %+v\nwant %+v", out.Notes, in.Notes)
	}
	if !reflect.DeepEqual(out.Cards, in.Cards) {
		t.Errorf("cards = %+v\nwant %+v", out.Cards, in.Cards)
	}
}
