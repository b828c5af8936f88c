package ankipkg_test

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// genankiHarness writes packages with genanki-js, an Anki package writer
// independent of ours (npm, pinned by its package-lock.json), installed
// by make anki-harness.
const genankiHarness = "testdata/genanki-harness"

// TestReadGenankiPackage reads the committed package genanki-js wrote
// (testdata/genanki.apkg, from testdata/genanki-harness/generate.mjs).
func TestReadGenankiPackage(t *testing.T) {
	b, err := os.ReadFile("testdata/genanki.apkg")
	if err != nil {
		t.Fatal(err)
	}
	checkGenanki(t, read(t, b))
}

// TestReadGenankiCustomType reads the committed package with a note type
// of its own that genanki-js wrote (testdata/genanki-custom.apkg, from
// generate.mjs custom).
func TestReadGenankiCustomType(t *testing.T) {
	b, err := os.ReadFile("testdata/genanki-custom.apkg")
	if err != nil {
		t.Fatal(err)
	}
	checkGenankiCustom(t, read(t, b))
}

// TestReadFreshGenankiPackage runs the harness and reads what it writes
// now, both cases, so the expectations hold for the library as pinned,
// not only for the committed files.
func TestReadFreshGenankiPackage(t *testing.T) {
	if _, err := os.Stat(filepath.Join(genankiHarness, "node_modules", "genanki-js")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the genanki harness is not installed (run make anki-harness): %v", err)
		}
		t.Skip("the genanki harness is not installed: run make anki-harness")
	}
	for _, c := range []struct {
		which string
		check func(*testing.T, ports.AnkiPackage)
	}{{"stock", checkGenanki}, {"custom", checkGenankiCustom}} {
		t.Run(c.which, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "fresh.apkg")
			cmd := exec.Command("node", "generate.mjs", out, c.which)
			cmd.Dir = genankiHarness
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("generate.mjs: %v\n%s", err, msg)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, read(t, b))
		})
	}
}

// checkGenankiCustom holds what generate.mjs custom writes: one deck, a
// standard note type of its own (four fields, two templates with
// {{#F}} and {{^F}} sections, CSS) and three notes whose cards genanki
// made from the type's requirements: the second card only for a note
// with an example.
func checkGenankiCustom(t *testing.T, p ports.AnkiPackage) {
	t.Helper()
	made := p.Created
	if len(p.Decks) != 1 || p.Decks[0].Key != 2059400120 || p.Decks[0].Name != "Vokabeln" {
		t.Errorf("decks = %+v", p.Decks)
	}
	want := ports.AnkiNoteType{Key: 1607392330, Name: "Vokabel (Genus)", Fields: []string{"Wort", "Bedeutung", "Beispiel", "Genus"},
		CSS: ".card { font-family: Georgia, serif; color: #223; background: url(\"paper.png\"); }\n.card small { color: gray; }",
		Templates: []ports.AnkiTemplate{
			{Name: "Erkennen", Front: "{{Wort}}{{#Genus}} <small>({{Genus}})</small>{{/Genus}}",
				Back: "{{FrontSide}}<hr id=answer>{{Bedeutung}}{{#Beispiel}}<br><i>{{Beispiel}}</i>{{/Beispiel}}"},
			{Name: "Beispiel", Front: "{{#Beispiel}}Im Satz: {{Beispiel}}{{/Beispiel}}",
				Back: "{{FrontSide}}<hr id=answer>{{Wort}}{{^Genus}} (ohne Genus){{/Genus}}: {{Bedeutung}}"}}}
	if len(p.NoteTypes) != 1 || !reflect.DeepEqual(p.NoteTypes[0], want) {
		t.Errorf("note types = %+v\nwant %+v", p.NoteTypes, want)
	}
	wantNotes := []ports.AnkiNote{
		{Key: 1, GUID: "genanki-vokabel-hund", TypeKey: 1607392330, Fields: []string{"Hund", "dog", "Der Hund bellt.", "der"}, Tags: []string{"Tiere"}, Modified: made},
		{Key: 2, GUID: "genanki-vokabel-katze", TypeKey: 1607392330, Fields: []string{"Katze", "cat", "Die Katze schläft.", ""}, Tags: []string{"Tiere"}, Modified: made},
		{Key: 3, GUID: "genanki-vokabel-maus", TypeKey: 1607392330, Fields: []string{"Maus", "mouse", "", "die"}, Modified: made},
	}
	if !reflect.DeepEqual(p.Notes, wantNotes) {
		t.Errorf("notes = %+v\nwant %+v", p.Notes, wantNotes)
	}
	card := func(key, note int64, ord int) ports.AnkiCard {
		return ports.AnkiCard{Key: key, NoteKey: note, DeckKey: 2059400120, Ord: ord, State: contracts.CardState{Phase: contracts.PhaseNew}, Modified: made}
	}
	wantCards := []ports.AnkiCard{card(1, 1, 0), card(2, 1, 1), card(3, 2, 0), card(4, 2, 1), card(5, 3, 0)}
	if !reflect.DeepEqual(p.Cards, wantCards) {
		t.Errorf("cards = %+v\nwant %+v", p.Cards, wantCards)
	}
}

// checkGenanki holds what generate.mjs writes: decks German,
// German::Vocab, German::Grammar (genanki's Default deck dropped); a
// reversed type and a cloze type; four notes with HTML, an image, audio
// and tags; a card per non-empty template side or cloze number.
func checkGenanki(t *testing.T, p ports.AnkiPackage) {
	t.Helper()
	made := p.Created // genanki stamps everything with the time it ran
	if made.IsZero() {
		t.Fatal("no creation time")
	}
	preset := contracts.DefaultDeckSettings()
	preset.LearningSteps, preset.RelearningSteps, preset.NewOrder = []float64{1, 10}, []float64{10}, contracts.NewOrderAdded
	wantDecks := []ports.AnkiDeck{
		{Key: 2059400110, Name: "German", Description: "Words and grammar", Settings: preset},
		{Key: 2059400112, Name: "German::Grammar", Settings: preset},
		{Key: 2059400111, Name: "German::Vocab", Settings: preset},
	}
	if !reflect.DeepEqual(p.Decks, wantDecks) {
		t.Errorf("decks = %+v\nwant %+v", p.Decks, wantDecks)
	}
	if len(p.NoteTypes) != 2 {
		t.Fatalf("note types = %+v", p.NoteTypes)
	}
	wantRev := ports.AnkiNoteType{Key: 1607392319, Name: "Basic (and reversed card)", Fields: []string{"Front", "Back"}, CSS: ".card { font-family: serif; }",
		Templates: []ports.AnkiTemplate{
			{Name: "Card 1", Front: "{{Front}}", Back: "{{FrontSide}}<hr id=answer>{{Back}}"},
			{Name: "Card 2", Front: "{{Back}}", Back: "{{FrontSide}}<hr id=answer>{{Front}}"}}}
	if !reflect.DeepEqual(p.NoteTypes[0], wantRev) {
		t.Errorf("reversed type = %+v\nwant %+v", p.NoteTypes[0], wantRev)
	}
	cl := p.NoteTypes[1]
	if cl.Key != 1607392320 || cl.Name != "Cloze" || !cl.Cloze || !reflect.DeepEqual(cl.Fields, []string{"Text", "Back Extra"}) ||
		!reflect.DeepEqual(cl.Templates, []ports.AnkiTemplate{{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>{{Back Extra}}"}}) {
		t.Errorf("cloze type = %+v", cl)
	}

	wantNotes := []ports.AnkiNote{
		{Key: 1, GUID: "genanki-list", TypeKey: 1607392319, Fields: []string{"<ul><li>eins</li><li>zwei</li></ul>", "one, two<br>three &lt;3"}, Modified: made},
		{Key: 2, GUID: "genanki-hund", TypeKey: 1607392319, Fields: []string{`<b>der Hund</b>&nbsp;<img src="hund.png">`, "the dog [sound:hund.mp3]"},
			Tags: []string{"Animals", "German::Nouns"}, Modified: made},
		{Key: 3, GUID: "genanki-katze", TypeKey: 1607392319, Fields: []string{"die Katze", ""}, Tags: []string{"Animals"}, Modified: made},
		{Key: 4, GUID: "genanki-cloze", TypeKey: 1607392320, Fields: []string{"{{c1::Der}} Hund {{c2::bellt}}.", "<i>bellen</i>: to bark"},
			Tags: []string{"Grammar"}, Modified: made},
	}
	if !reflect.DeepEqual(p.Notes, wantNotes) {
		t.Errorf("notes = %+v\nwant %+v", p.Notes, wantNotes)
	}

	newCard := func(key, note, deck int64, ord int) ports.AnkiCard {
		return ports.AnkiCard{Key: key, NoteKey: note, DeckKey: deck, Ord: ord, State: contracts.CardState{Phase: contracts.PhaseNew}, Modified: made}
	}
	wantCards := []ports.AnkiCard{
		newCard(1, 1, 2059400110, 0), newCard(2, 1, 2059400110, 1),
		newCard(3, 2, 2059400111, 0), newCard(4, 2, 2059400111, 1),
		newCard(5, 3, 2059400111, 0), // the empty back makes no reverse card
		newCard(6, 4, 2059400112, 0), newCard(7, 4, 2059400112, 1),
	}
	if !reflect.DeepEqual(p.Cards, wantCards) {
		t.Errorf("cards = %+v\nwant %+v", p.Cards, wantCards)
	}
	if len(p.Reviews) != 0 {
		t.Errorf("reviews = %+v", p.Reviews)
	}
	got := mediaBytes(t, p)
	png, _ := hex.DecodeString("89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
		"1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
	mp3, _ := hex.DecodeString("494433030000000000000ffffb9064000f")
	if len(got) != 2 || got["hund.png"] != string(png) || got["hund.mp3"] != string(mp3) {
		t.Errorf("media = %q", got)
	}
}
