package domain_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// A package genanki-js wrote (an implementation independent of ours)
// with a note type of its own — own fields, two templates with {{#F}}
// and {{^F}} sections, CSS — is imported keeping the type as the package
// has it and rendering the cards with its templates; get_note reports
// the type and add_notes takes it.
func TestImportGenankiCustomType(t *testing.T) { eachStore(t, testImportGenankiCustomType) }

func testImportGenankiCustomType(t *testing.T, store string) {
	b, err := os.ReadFile("../../../adapters/ankipkg/testdata/genanki-custom.apkg")
	if err != nil {
		t.Fatal(err)
	}
	src, err := (ankipkg.Reader{TempDir: t.TempDir()}).OpenPackage(context.Background(), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pkg := src.Head()
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	rep, err := e.svc.Import.Apply(ctx, src, exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 3 || rep.CardsCreated != 5 || len(rep.Skipped) != 0 {
		t.Errorf("report %+v; want 3 notes and 5 cards, nothing skipped", rep)
	}
	types, err := e.store.NoteTypes().ListNoteTypes(ctx, e.uid(ctx), "", 10)
	if err != nil || len(types) != 1 {
		t.Fatalf("stored note types %+v %v", types, err)
	}
	got, at := types[0], pkg.NoteTypes[0]
	wantTemplates := []ports.NoteTemplateRow{}
	for _, tp := range at.Templates {
		wantTemplates = append(wantTemplates, ports.NoteTemplateRow{Name: tp.Name, Front: tp.Front, Back: tp.Back})
	}
	if got.Name != "Vokabel (Genus)" || got.Kind != "standard" || got.AnkiID != 1607392330 ||
		!reflect.DeepEqual(got.Fields, []string{"Wort", "Bedeutung", "Beispiel", "Genus"}) ||
		!reflect.DeepEqual(got.Templates, wantTemplates) || got.CSS != at.CSS || at.CSS == "" {
		t.Errorf("stored type %+v\nfrom the package's %+v", got, at)
	}
	checkCards(t, e.noteCards(ctx), map[string][2]string{
		"Hund/0":  {"Hund <small>(der)</small>", "dog<br><i>Der Hund bellt.</i>"},
		"Hund/1":  {"Im Satz: Der Hund bellt.", "Hund: dog"},
		"Katze/0": {"Katze", "cat<br><i>Die Katze schläft.</i>"},
		"Katze/1": {"Im Satz: Die Katze schläft.", "Katze (ohne Genus): cat"},
		"Maus/0":  {"Maus <small>(die)</small>", "mouse"},
	})

	n, err := e.svc.Notes.GetNote(ctx, e.noteIDOf(ctx, "Maus <small>(die)</small>"))
	if err != nil || n.NoteType != got.Name || n.NoteTypeID != got.ID || !reflect.DeepEqual(n.FieldNames, got.Fields) || n.Fields["Genus"] != "die" {
		t.Fatalf("get_note %+v %v", n, err)
	}
	deckID := n.Cards[0].DeckID
	r, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: deckID, Notes: []contracts.NewNote{
		{NoteType: n.NoteType, Fields: map[string]string{"Wort": "Pferd", "Bedeutung": "horse", "Beispiel": "Das Pferd läuft."}}}})
	if err != nil || statuses(r) != "created" || len(r.Items[0].CardIDs) != 2 {
		t.Fatalf("add_notes of the imported type: %+v %v", r, err)
	}
	if c, err := e.svc.Cards.GetCard(ctx, r.Items[0].CardIDs[1]); err != nil || c.Back != "Pferd (ohne Genus): horse" {
		t.Errorf("added note's second card %+v %v", c, err)
	}
}
