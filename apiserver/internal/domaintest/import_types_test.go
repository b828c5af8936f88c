package domain_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// vocabPackage is a package with two note types of its own: "Vocab"
// (four fields; a second template only when Example is filled in) and a
// cloze type with a source field.
func vocabPackage(exampleBack string) ports.AnkiPackage {
	return ports.AnkiPackage{
		Created: t0.Add(-30 * 24 * time.Hour),
		Decks:   []ports.AnkiDeck{{Key: 1, Name: "Words", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{
			{Key: 1700000000001, Name: "Vocab", Fields: []string{"Word", "Meaning", "Example", "Audio"}, CSS: ".card { font-size: 20px; }",
				Templates: []ports.AnkiTemplate{
					{Name: "Recognise", Front: "{{Word}}{{#Audio}} {{Audio}}{{/Audio}}",
						Back: "{{FrontSide}}\n<hr id=answer>\n{{Meaning}}{{^Example}}<br>(no example){{/Example}}"},
					{Name: "Example", Front: "{{#Example}}{{text:Example}}{{/Example}}", Back: exampleBack}}},
			{Key: 1700000000002, Name: "Cloze with source", Cloze: true, Fields: []string{"Text", "Source"},
				Templates: []ports.AnkiTemplate{{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>{{hint:Source}}"}}},
		},
		Notes: []ports.AnkiNote{
			{Key: 10, GUID: "g-hund", TypeKey: 1700000000001, Fields: []string{"der Hund", "the dog", "Der <b>Hund</b> bellt.", ""}},
			{Key: 11, GUID: "g-katze", TypeKey: 1700000000001, Fields: []string{"die Katze", "the cat", "", ""}},
			{Key: 12, GUID: "g-berlin", TypeKey: 1700000000002, Fields: []string{"{{c1::Berlin}} is the capital of {{c2::Germany}}.", "Atlas"}},
		},
		Cards: []ports.AnkiCard{
			{Key: 100, NoteKey: 10, DeckKey: 1, Ord: 0, Position: 1},
			{Key: 101, NoteKey: 10, DeckKey: 1, Ord: 1, Position: 2},
			{Key: 102, NoteKey: 11, DeckKey: 1, Ord: 0, Position: 3},
			{Key: 103, NoteKey: 12, DeckKey: 1, Ord: 0, Position: 4},
			{Key: 104, NoteKey: 12, DeckKey: 1, Ord: 1, Position: 5},
		},
	}
}

// noteCards are a user's note cards by "first field/ord": front and back.
func (e *env) noteCards(ctx context.Context) map[string][2]string {
	e.t.Helper()
	uid := e.uid(ctx)
	out := map[string][2]string{}
	decks, err := e.store.Decks().ListDecks(ctx, uid, "", 100, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, d := range decks {
		rows, err := e.store.Cards().Search(ctx, uid, contracts.CardFilter{DeckID: d.ID}, "", 500, e.clock.Now())
		if err != nil {
			e.t.Fatal(err)
		}
		for _, c := range rows {
			ns, err := e.store.Notes().GetNotes(ctx, uid, []string{c.NoteID})
			if err != nil || len(ns) != 1 {
				e.t.Fatalf("note of card %s: %v %v", c.ID, ns, err)
			}
			out[fmt.Sprintf("%s/%d", ns[0].Fields[0], c.Ord)] = [2]string{c.Front, c.Back}
		}
	}
	return out
}

// wantVocabCards are the cards vocabPackage makes, rendered with its own
// templates: the Example card only for the note with an example, one card
// per cloze number.
func wantVocabCards(exampleBack string) map[string][2]string {
	return map[string][2]string{
		"der Hund/0":  {"der Hund", "the dog"},
		"der Hund/1":  {"Der Hund bellt.", exampleBack},
		"die Katze/0": {"die Katze", "the cat<br>(no example)"},
		"{{c1::Berlin}} is the capital of {{c2::Germany}}./0": {`<span class="cloze">[...]</span> is the capital of Germany.`,
			`<span class="cloze">Berlin</span> is the capital of Germany.<br><span class="hint">Atlas</span>`},
		"{{c1::Berlin}} is the capital of {{c2::Germany}}./1": {`Berlin is the capital of <span class="cloze">[...]</span>.`,
			`Berlin is the capital of <span class="cloze">Germany</span>.<br><span class="hint">Atlas</span>`},
	}
}

func checkCards(t *testing.T, got, want map[string][2]string) {
	t.Helper()
	keys := []string{}
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("card %s = %q, want %q", k, got[k], want[k])
		}
	}
}

// A package's own note types are kept: stored with their fields,
// templates and CSS, their notes keep every field and their cards render
// with the package's templates; a re-import updates the type and re-renders
// the cards without duplicating them or losing their scheduling; editing a
// note re-renders its cards from its stored type; an export writes the
// type as it is, and importing that export into another account gives
// back the same type, fields and cards.
func TestImportOwnNoteTypes(t *testing.T) { eachStore(t, testImportOwnNoteTypes) }

func testImportOwnNoteTypes(t *testing.T, store string) {
	e, captured := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	uid := mustUser(t, ctx)
	dueHund := t0.Add(96 * time.Hour)
	backV1 := "{{FrontSide}}<hr id=answer>{{Word}}: {{Meaning}}"
	pkg := vocabPackage(backV1)
	pkg.Cards[0].State = contracts.CardState{Phase: contracts.PhaseReview, Due: dueHund, ScheduledDays: 4, Reps: 3, Stability: 5, Difficulty: 5}
	rep, err := e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 3 || rep.CardsCreated != 5 || len(rep.Skipped) != 0 {
		t.Errorf("report %+v; want 3 notes, 5 cards, nothing skipped or converted", rep)
	}
	checkCards(t, e.noteCards(ctx), wantVocabCards("der Hund: the dog")) // the answer's repeat of the question is left out

	types, err := e.store.NoteTypes().ListNoteTypes(ctx, uid, "", 10)
	if err != nil || len(types) != 2 {
		t.Fatalf("stored note types %+v %v", types, err)
	}
	byName := map[string]ports.NoteTypeRow{}
	for _, ty := range types {
		byName[ty.Name] = ty
	}
	vocab, cloze := byName["Vocab"], byName["Cloze with source"]
	if vocab.Kind != "standard" || !slices.Equal(vocab.Fields, []string{"Word", "Meaning", "Example", "Audio"}) || len(vocab.Templates) != 2 ||
		vocab.Templates[1] != (ports.NoteTemplateRow{Name: "Example", Front: "{{#Example}}{{text:Example}}{{/Example}}", Back: backV1}) ||
		vocab.CSS != ".card { font-size: 20px; }" || vocab.AnkiID != 1700000000001 {
		t.Errorf("stored Vocab %+v", vocab)
	}
	if cloze.Kind != "cloze" || !slices.Equal(cloze.Fields, []string{"Text", "Source"}) || cloze.AnkiID != 1700000000002 {
		t.Errorf("stored cloze type %+v", cloze)
	}

	// get_note names the type and all its fields.
	hund, err := e.svc.Notes.GetNote(ctx, e.noteIDOf(ctx, "der Hund"))
	if err != nil {
		t.Fatal(err)
	}
	if hund.NoteType != "Vocab" || !slices.Equal(hund.FieldNames, vocab.Fields) || hund.Fields["Example"] != "Der <b>Hund</b> bellt." ||
		hund.Fields["Audio"] != "" || len(hund.Cards) != 2 {
		t.Errorf("get_note = %+v", hund)
	}

	var first contracts.NoteCard
	for _, c := range hund.Cards {
		if c.Ord == 0 {
			first = c
		}
	}
	before := e.card1(ctx, first.ID)
	if before.State.Phase != contracts.PhaseReview || before.State.Due.Sub(dueHund).Abs() > 24*time.Hour || before.State.Reps != 3 {
		t.Fatalf("imported state %+v; want the package's (due on the day of %s)", before.State, dueHund)
	}

	// A re-import with a changed template updates the type in place and
	// re-renders the cards; the reviewed card keeps its schedule.
	e.clock.Advance(time.Hour)
	backV2 := "{{Meaning}} ({{Word}})"
	pkg = vocabPackage(backV2)
	pkg.Cards[0].State = before.State
	rep, err = e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 0 || rep.CardsCreated != 0 || rep.NotesUpdated != 3 {
		t.Errorf("re-import report %+v; want 3 notes updated, nothing created", rep)
	}
	checkCards(t, e.noteCards(ctx), wantVocabCards("the dog (der Hund)"))
	again, err := e.store.NoteTypes().ListNoteTypes(ctx, uid, "", 10)
	if err != nil || len(again) != 2 {
		t.Fatalf("note types after re-import %+v %v", again, err)
	}
	for _, ty := range again {
		if ty.Name == "Vocab" && (ty.ID != vocab.ID || ty.Templates[1].Back != backV2) {
			t.Errorf("re-imported Vocab %+v; want %s updated with the new template", ty, vocab.ID)
		}
	}
	if after := e.card1(ctx, first.ID); after.State.Phase != before.State.Phase || !after.State.Due.Equal(before.State.Due) || after.State.Reps != before.State.Reps {
		t.Errorf("state after re-import %+v, before %+v", after.State, before.State)
	}

	// Editing a note re-renders its cards from its stored type and keeps
	// their scheduling; a field the type lacks is refused.
	res, err := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{
		{ID: hund.ID, Fields: map[string]string{"Meaning": "the hound", "Example": ""}}}})
	if err != nil || res.Counts["updated"] != 1 {
		t.Fatalf("update_notes %+v %v", res, err)
	}
	want := wantVocabCards("")
	want["der Hund/0"] = [2]string{"der Hund", "the hound<br>(no example)"}
	delete(want, "der Hund/1")
	got := e.noteCards(ctx)
	delete(got, "der Hund/1") // a card the note no longer makes is left as it was
	checkCards(t, got, want)
	if after := e.card1(ctx, first.ID); after.State.Phase != before.State.Phase || !after.State.Due.Equal(before.State.Due) {
		t.Errorf("state after edit %+v, before %+v", after.State, before.State)
	}
	res, err = e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{
		{ID: hund.ID, Fields: map[string]string{"Back": "x"}}}})
	if err != nil || res.Counts["invalid"] != 1 || !strings.Contains(res.Items[0].Reason, `no field "Back"`) {
		t.Errorf("update with an unknown field: %+v %v", res, err)
	}

	// Export, then import the export into another account.
	res, err = e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{
		{ID: hund.ID, Fields: map[string]string{"Example": "Der <b>Hund</b> bellt."}}}})
	if err != nil || res.Counts["updated"] != 1 {
		t.Fatalf("update_notes %+v %v", res, err)
	}
	deckID, err := e.store.Decks().DeckIDByName(ctx, uid, "Words")
	if err != nil {
		t.Fatal(err)
	}
	out := e.exportPackage(ctx, deckID, captured)
	var outVocab ports.AnkiNoteType
	for _, ty := range out.NoteTypes {
		if ty.Name == "Vocab" {
			outVocab = ty
		}
	}
	if outVocab.Key != 1700000000001 || !slices.Equal(outVocab.Fields, vocab.Fields) || outVocab.CSS != vocab.CSS || outVocab.Cloze ||
		len(outVocab.Templates) != 2 || outVocab.Templates[1] != (ports.AnkiTemplate{Name: "Example", Front: "{{#Example}}{{text:Example}}{{/Example}}", Back: backV2}) {
		t.Errorf("exported Vocab %+v", outVocab)
	}
	wantAfterEdit := e.noteCards(ctx)
	bob := e.user("bob@example.com")
	rep, err = e.svc.Import.Apply(bob, viaApkg(t, out), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 3 || rep.CardsCreated != 5 || len(rep.Skipped) != 0 {
		t.Errorf("round-trip report %+v", rep)
	}
	checkCards(t, e.noteCards(bob), wantAfterEdit)
	bobTypes, err := e.store.NoteTypes().ListNoteTypes(bob, mustUser(t, bob), "", 10)
	if err != nil || len(bobTypes) != 2 {
		t.Fatalf("bob's note types %+v %v", bobTypes, err)
	}
	for _, ty := range bobTypes {
		src := byName[ty.Name]
		if src.ID == "" || ty.ID == src.ID || ty.Kind != src.Kind || !slices.Equal(ty.Fields, src.Fields) || ty.CSS != src.CSS {
			t.Errorf("round-tripped type %+v; exported from %+v", ty, src)
		}
	}
}

// viaApkg writes p as an .apkg with our writer and reads it back with our
// reader, as an import of a file does.
func viaApkg(t *testing.T, p ports.AnkiPackage) ports.PackageSource {
	t.Helper()
	var buf bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(context.Background(), &buf, p); err != nil {
		t.Fatal(err)
	}
	out, err := (ankipkg.Reader{TempDir: t.TempDir()}).OpenPackage(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	return out
}

// noteIDOf is the id of the note of the user's card with this front.
func (e *env) noteIDOf(ctx context.Context, front string) string {
	e.t.Helper()
	rows, err := e.store.Cards().Search(ctx, e.uid(ctx), contracts.CardFilter{}, "", 500, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range rows {
		if c.Front == front && c.NoteID != "" {
			return c.NoteID
		}
	}
	e.t.Fatalf("no note card with front %q", front)
	return ""
}

// card1 reads one of the user's cards.
func (e *env) card1(ctx context.Context, id string) ports.CardRow {
	e.t.Helper()
	rows, err := e.store.Cards().GetCards(ctx, e.uid(ctx), []string{id})
	if err != nil || len(rows) != 1 {
		e.t.Fatalf("card %s: %v %v", id, rows, err)
	}
	return rows[0]
}

// uid is the acting user of ctx.
func (e *env) uid(ctx context.Context) string {
	e.t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return uid
}

// A note type whose templates break a rule (a field it lacks, sections
// nested too deep, a template over the size limit) is not kept: its
// notes are converted to a stock type by field position, and the report
// says why.
func TestImportHostileNoteTypes(t *testing.T) { eachStore(t, testImportHostileNoteTypes) }

func testImportHostileNoteTypes(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	deep := strings.Repeat("{{#Word}}", 40) + "{{Word}}" + strings.Repeat("{{/Word}}", 40)
	huge := "{{Word}}" + strings.Repeat("x", 70<<10)
	bad := map[string]string{"unknown": "{{Word}} {{Nope}}", "deep": deep, "huge": huge, "unclosed": "{{#Word}}{{Word}}"}
	pkg := ports.AnkiPackage{Decks: []ports.AnkiDeck{{Key: 1, Name: "Hostile"}}}
	key := int64(0)
	names := []string{}
	for name := range bad {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key++
		pkg.NoteTypes = append(pkg.NoteTypes, ports.AnkiNoteType{Key: key, Name: name, Fields: []string{"Word", "Meaning"},
			Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: bad[name], Back: "{{Meaning}}"}}})
		pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: 100 + key, GUID: "g-" + name, TypeKey: key, Fields: []string{name + " word", "meaning"}})
		pkg.Cards = append(pkg.Cards, ports.AnkiCard{Key: 200 + key, NoteKey: 100 + key, DeckKey: 1, Position: int(key)})
	}
	rep, err := e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesCreated != 4 || rep.CardsCreated != 4 {
		t.Errorf("report %+v; want every note converted and imported", rep)
	}
	reasons := []string{}
	for _, s := range rep.Skipped {
		if s.What == "noteType" && s.Count == 1 {
			reasons = append(reasons, s.Reason)
		}
	}
	sort.Strings(reasons)
	want := []string{`"deep" could not be kept (note type "deep", template "Card 1", front: sections are nested more than 32 deep)`,
		`"huge" could not be kept (note type "huge", template "Card 1", front: template is 71688 bytes; the limit is 65536)`,
		`"unclosed" could not be kept (note type "unclosed", template "Card 1", front: {{#Word}} is never closed with {{/Word}})`,
		`"unknown" could not be kept (note type "unknown", template "Card 1", front: there is no field "Nope")`}
	if len(reasons) != len(want) {
		t.Fatalf("note type reasons %q", reasons)
	}
	for i, w := range want {
		if !strings.HasPrefix(reasons[i], "note type "+w+`: its notes were converted to "Basic" by field position`) {
			t.Errorf("reason %q; want it to start %q", reasons[i], w)
		}
	}
	if types, err := e.store.NoteTypes().ListNoteTypes(ctx, e.uid(ctx), "", 10); err != nil || len(types) != 0 {
		t.Errorf("stored note types %+v %v; want none", types, err)
	}
	cards := e.noteCards(ctx)
	if cards["deep word/0"] != [2]string{"deep word", "meaning"} {
		t.Errorf("converted card %q", cards["deep word/0"])
	}
}
