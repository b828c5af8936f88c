package domain_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// putVocabType stores an own note type of the user's, as an import
// would: three fields, two templates with {{#Field}} conditionals, CSS.
func putVocabType(t *testing.T, e *env, ctx context.Context, id, name string) ports.NoteTypeRow {
	t.Helper()
	row := ports.NoteTypeRow{ID: id, Name: name, Kind: "standard", Fields: []string{"Word", "Meaning", "Example"},
		Templates: []ports.NoteTemplateRow{
			{Name: "Recognise", Front: "{{Word}}", Back: "{{FrontSide}}<hr id=answer>{{Meaning}}{{#Example}}<br><i>{{Example}}</i>{{/Example}}"},
			{Name: "Produce", Front: "{{#Meaning}}Say: {{Meaning}}{{/Meaning}}", Back: "{{FrontSide}}<hr id=answer>{{Word}}"},
		},
		CSS: ".card { color: navy }", CreatedAt: t0, UpdatedAt: t0}
	if err := e.store.NoteTypes().PutNoteType(ctx, e.uid(ctx), row); err != nil {
		t.Fatal(err)
	}
	return row
}

// add_notes takes the user's own note types by id or exact name, renders
// their cards with the type's templates, and get_note reports the type's
// id, name and field names so the note can be added again the same way.
// Unknown types, unknown fields and notes without any field their cards
// ask fail the whole call with what to send instead; another user's type
// is unknown.
func TestAddNotesOwnTypes(t *testing.T) { eachStore(t, testAddNotesOwnTypes) }

func testAddNotesOwnTypes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Deutsch::Vokabeln")
	vocab := putVocabType(t, e, ctx, "nt_vocab1", "Vocab")
	cloze := ports.NoteTypeRow{ID: "nt_satz1", Name: "Satz", Kind: "cloze", Fields: []string{"Satz", "Extra"},
		Templates: []ports.NoteTemplateRow{{Name: "Lücke", Front: "{{cloze:Satz}} ({{Subdeck}})", Back: "{{cloze:Satz}}<br>{{Extra}}"}}, CreatedAt: t0, UpdatedAt: t0}
	if err := e.store.NoteTypes().PutNoteType(ctx, e.uid(ctx), cloze); err != nil {
		t.Fatal(err)
	}

	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{
		{NoteType: "Vocab", Fields: map[string]string{"Word": "der Hund", "Meaning": "the dog", "Example": "Der Hund bellt."}, Tags: []string{"tiere"}},
		{NoteType: vocab.ID, Fields: map[string]string{"Word": "die Katze", "Example": "Die Katze schläft."}}, // no Meaning: no Produce card
		{NoteType: "Satz", Fields: map[string]string{"Satz": "{{c1::Der}} Hund {{c2::bellt}}."}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "created,created,created" {
		t.Fatalf("statuses %s: %+v", got, r.Items)
	}
	if len(r.Items[0].CardIDs) != 2 || len(r.Items[1].CardIDs) != 1 || len(r.Items[2].CardIDs) != 2 {
		t.Fatalf("cards made: %+v", r.Items)
	}
	want := map[string][2]string{
		r.Items[0].CardIDs[0]: {"der Hund", "the dog<br><i>Der Hund bellt.</i>"},
		r.Items[0].CardIDs[1]: {"Say: the dog", "der Hund"},
		r.Items[1].CardIDs[0]: {"die Katze", "<br><i>Die Katze schläft.</i>"},
		r.Items[2].CardIDs[0]: {`<span class="cloze">[...]</span> Hund bellt. (Vokabeln)`, `<span class="cloze">Der</span> Hund bellt.`},
		r.Items[2].CardIDs[1]: {`Der Hund <span class="cloze">[...]</span>. (Vokabeln)`, `Der Hund <span class="cloze">bellt</span>.`},
	}
	for id, w := range want {
		c, err := e.svc.Cards.GetCard(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Front != w[0] || c.Back != w[1] {
			t.Errorf("card %s: %q / %q, want %q / %q", id, c.Front, c.Back, w[0], w[1])
		}
	}

	// get_note reports the type so the note can be added again as it is.
	n, err := e.svc.Notes.GetNote(ctx, r.Items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.NoteType != "Vocab" || n.NoteTypeID != vocab.ID || !slices.Equal(n.FieldNames, vocab.Fields) || n.Fields["Example"] != "Der Hund bellt." || len(n.Cards) != 2 {
		t.Fatalf("get_note = %+v", n)
	}
	d2 := e.deck(ctx, "Copy")
	again, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d2.ID, Notes: []contracts.NewNote{{NoteType: n.NoteTypeID, Fields: n.Fields, Tags: n.Tags}}})
	if err != nil || statuses(again) != "created" {
		t.Fatalf("round trip: %+v %v", again, err)
	}
	if copied, err := e.svc.Notes.GetNote(ctx, again.Items[0].ID); err != nil || copied.NoteTypeID != vocab.ID || len(copied.Cards) != 2 {
		t.Errorf("copied note %+v %v", copied, err)
	}
	stock, _ := e.svc.Notes.GetNote(ctx, r.Items[2].ID)
	if stock.NoteTypeID != cloze.ID {
		t.Errorf("own cloze note's type id %q", stock.NoteTypeID)
	}

	// update_notes re-renders with the own type's templates.
	u, err := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{{ID: r.Items[1].ID, Fields: map[string]string{"Meaning": "the cat"}}}})
	if err != nil || statuses(u) != "updated" || len(u.Items[0].CardIDs) != 2 {
		t.Fatalf("update: %+v %v", u, err)
	}
	if c, _ := e.svc.Cards.GetCard(ctx, u.Items[0].CardIDs[1]); c.Front != "Say: the cat" {
		t.Errorf("re-made card %q", c.Front)
	}

	// Mistakes in the call: every note that has one is named, nothing is
	// added.
	before, _ := e.svc.Decks.GetDeck(ctx, d.ID)
	_, err = e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{
		{NoteType: "Vocab", Fields: map[string]string{"Word": "das Pferd", "Meaning": "the horse"}}, // fine, but not added
		{NoteType: "Vocabulary", Fields: map[string]string{"Word": "x"}},
		{NoteType: "Vocab", Fields: map[string]string{"Wort": "x", "Meaning": "y"}},
		{NoteType: "Vocab", Fields: map[string]string{"Example": "only an example"}},
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "x", "Rückseite": "y"}},
		{NoteType: "Satz", Fields: map[string]string{"Extra": "no sentence"}},
	}})
	wantKind(t, err, contracts.KindInvalid)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for _, w := range []string{
		`notes[1]: unknown note type "Vocabulary"`, `"Vocab" (nt_vocab1; fields Word, Meaning, Example)`, "Cloze",
		`notes[2]: note type "Vocab" has no field "Wort"; its fields are Word, Meaning, Example`,
		`notes[3]: a "Vocab" note needs "Word" or "Meaning"`,
		`notes[4]: note type "Basic" has no field "Rückseite"; its fields are Front, Back`,
		`notes[5]: a "Satz" note needs "Satz"`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "notes[0]") {
		t.Errorf("error names the good note:\n%s", msg)
	}
	if after, _ := e.svc.Decks.GetDeck(ctx, d.ID); after.Counts.Total != before.Counts.Total {
		t.Errorf("a failed call added cards: %d → %d", before.Counts.Total, after.Counts.Total)
	}

	// Two own types of one name: the name is ambiguous, the id is not.
	putVocabType(t, e, ctx, "nt_vocab2", "Vocab")
	_, err = e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: "Vocab", Fields: map[string]string{"Word": "das Pferd"}}}})
	wantKind(t, err, contracts.KindInvalid)
	if err == nil || !strings.Contains(err.Error(), "nt_vocab1, nt_vocab2") {
		t.Errorf("ambiguous name: %v", err)
	}
	if r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: "nt_vocab2", Fields: map[string]string{"Word": "das Pferd", "Meaning": "the horse"}}}}); err != nil || statuses(r) != "created" {
		t.Errorf("by id: %+v %v", r, err)
	}

	// The study view's stylesheet: the type's CSS scoped to the card
	// container; none for a card without a note type of its own; another
	// user's card is not found.
	style, err := e.svc.Notes.CardStyle(ctx, r.Items[0].CardIDs[0], ".nt-card")
	if err != nil || style != ".nt-card { color: navy; }" {
		t.Errorf("CardStyle = %q, %v", style, err)
	}
	plain := e.add(ctx, d.ID, card("plain", "card")).Items[0].ID
	if style, err := e.svc.Notes.CardStyle(ctx, plain, ".nt-card"); err != nil || style != "" {
		t.Errorf("CardStyle of a plain card = %q, %v", style, err)
	}
	if style, err := e.svc.Notes.CardStyle(ctx, stock.Cards[0].ID, ".nt-card"); err != nil || style != "" {
		t.Errorf("CardStyle of an own cloze type without CSS = %q, %v", style, err)
	}
	_, err = e.svc.Notes.CardStyle(ctx, plain, "body")
	wantKind(t, err, contracts.KindInvalid)

	// Another user has no such type, by id or by name.
	bob := e.user("bob@example.com")
	bd := e.deck(bob, "Bob's")
	_, err = e.svc.Notes.AddNotes(bob, contracts.AddNotesArgs{DeckID: bd.ID, Notes: []contracts.NewNote{{NoteType: vocab.ID, Fields: map[string]string{"Word": "x"}}}})
	wantKind(t, err, contracts.KindInvalid)
	if err == nil || !strings.Contains(err.Error(), "you have no note types of your own") {
		t.Errorf("another user's type: %v", err)
	}
	_, err = e.svc.Notes.CardStyle(bob, r.Items[0].CardIDs[0], ".nt-card")
	wantKind(t, err, contracts.KindNotFound)
}

// The account export carries the account's own note types (fields,
// templates, CSS) and names the fields of their notes.
func TestExportAccountOwnNoteTypes(t *testing.T) {
	e := newEnv(t, onSQLite)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "D")
	vocab := putVocabType(t, e, ctx, "nt_vocab1", "Vocab")
	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{
		{NoteType: "Vocab", Fields: map[string]string{"Word": "der Hund", "Meaning": "the dog"}}}})
	if err != nil || statuses(r) != "created" {
		t.Fatalf("add: %+v %v", r, err)
	}
	var buf bytes.Buffer
	if err := e.svc.AccountData.Export(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open(exchange.ExportJSONName)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var doc struct {
		NoteTypes []exchange.ExportNoteType `json:"noteTypes"`
		Notes     []exchange.ExportNote     `json:"notes"`
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.NoteTypes) != 1 || doc.NoteTypes[0].ID != vocab.ID || doc.NoteTypes[0].Name != "Vocab" || doc.NoteTypes[0].CSS != vocab.CSS ||
		!slices.Equal(doc.NoteTypes[0].Fields, vocab.Fields) || !reflect.DeepEqual(doc.NoteTypes[0].Templates, vocab.Templates) {
		t.Errorf("exported note types %+v", doc.NoteTypes)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].NoteType != vocab.ID || !slices.Equal(doc.Notes[0].FieldNames, vocab.Fields) || doc.Notes[0].Fields[0] != "der Hund" {
		t.Errorf("exported notes %+v", doc.Notes)
	}
}
