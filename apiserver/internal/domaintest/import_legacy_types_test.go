package domain_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// Notes imported before own note types were kept had the package's type
// converted to a stock type (Vocab, two templates → Basic (and reversed
// card); a cloze type → Cloze) with their fields joined by position.
// Re-importing the same package now updates them: each note moves to the
// package's own type with all its fields, its cards keep their ids, state
// and review history by template ordinal and are re-rendered, a card the
// type no longer makes is left as it is, and nothing is duplicated. A
// note here with another stock type than the conversion's is still
// skipped with the reason.
func TestReimportConvertedNotes(t *testing.T) { eachStore(t, testReimportConvertedNotes) }

func testReimportConvertedNotes(t *testing.T, store string) {
	e, _ := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	uid := e.uid(ctx)
	deck := e.deck(ctx, "Words")

	// The old importer's result, as it stored it: note ids from the GUIDs,
	// converted types and fields, cards rendered by the stock templates,
	// one card reviewed.
	noteID := func(guid string) string {
		sum := sha256.Sum256([]byte(uid + "\x00" + guid))
		return "n" + hex.EncodeToString(sum[:16])
	}
	at := t0.Add(-24 * time.Hour)
	reviewed := contracts.CardState{Phase: contracts.PhaseReview, Due: t0.Add(72 * time.Hour), ScheduledDays: 4, Reps: 3, Stability: 5, Difficulty: 5, LastReview: &at}
	oldNotes := []ports.NoteRow{
		{ID: noteID("g-hund"), NoteType: contracts.NoteTypeBasicReversed, GUID: "g-hund", Fields: []string{"der Hund", "the dog\n\nDer <b>Hund</b> bellt."}},
		{ID: noteID("g-katze"), NoteType: contracts.NoteTypeBasicReversed, GUID: "g-katze", Fields: []string{"die Katze", "the cat"}},
		{ID: noteID("g-berlin"), NoteType: contracts.NoteTypeBasic, GUID: "g-berlin", Fields: []string{"{{c1::Berlin}} is the capital of {{c2::Germany}}.", "Atlas"}},
	}
	for i := range oldNotes {
		oldNotes[i].Version, oldNotes[i].CreatedAt, oldNotes[i].UpdatedAt = 1, at, at
	}
	if err := e.store.Notes().InsertNotes(ctx, uid, oldNotes); err != nil {
		t.Fatal(err)
	}
	oldCard := func(id, note string, ord int, front, back string, st contracts.CardState) ports.CardRow {
		return ports.CardRow{Hash: cardtext.Hash(front, back), Version: 1, Card: contracts.Card{ID: id, DeckID: deck.ID, NoteID: note, Ord: ord,
			Front: front, Back: back, Tags: []string{}, State: st, CreatedAt: at, UpdatedAt: at}}
	}
	fresh := contracts.CardState{Phase: contracts.PhaseNew, Due: at}
	oldCards := []ports.CardRow{
		oldCard("c-hund-0", oldNotes[0].ID, 0, "der Hund", "the dog\n\nDer <b>Hund</b> bellt.", reviewed),
		oldCard("c-hund-1", oldNotes[0].ID, 1, "the dog\n\nDer <b>Hund</b> bellt.", "der Hund", fresh),
		oldCard("c-katze-0", oldNotes[1].ID, 0, "die Katze", "the cat", fresh),
		oldCard("c-katze-1", oldNotes[1].ID, 1, "the cat", "die Katze", fresh),
		oldCard("c-berlin-0", oldNotes[2].ID, 0, "{{c1::Berlin}} is the capital of {{c2::Germany}}.", "Atlas", fresh),
	}
	if err := e.store.Cards().InsertCards(ctx, uid, oldCards); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Reviews().AppendReview(ctx, ports.ReviewLog{ID: "r-hund", UserID: uid, CardID: "c-hund-0", DeckID: deck.ID, Rating: contracts.RatingGood,
		PrevPhase: contracts.PhaseLearning, State: reviewed, ReviewedAt: at}); err != nil {
		t.Fatal(err)
	}

	pkg := vocabPackage("{{FrontSide}}<hr id=answer>{{Word}}: {{Meaning}}")
	pkg.Cards[0].State = reviewed // the same package carries the same scheduling (Anki keeps the due day)
	rep, err := e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotesUpdated != 2 || rep.NotesCreated != 0 || rep.CardsCreated != 0 || rep.CardsUpdated != 3 {
		t.Errorf("report %+v; want 2 notes and 3 cards updated, nothing created", rep)
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, "already with another note type") || rep.Skipped[0].Count != 1 ||
		!strings.Contains(rep.Skipped[0].Example, "Berlin") {
		t.Errorf("skipped %+v; want only the note here with another stock type than the conversion's", rep.Skipped)
	}

	types, err := e.store.NoteTypes().ListNoteTypes(ctx, uid, "", 10)
	if err != nil || len(types) != 2 {
		t.Fatalf("stored note types %+v %v", types, err)
	}
	hund, err := e.svc.Notes.GetNote(ctx, oldNotes[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if hund.NoteType != "Vocab" || !strings.HasPrefix(hund.NoteTypeID, ports.NoteTypeIDPrefix) || len(hund.FieldNames) != 4 ||
		hund.Fields["Meaning"] != "the dog" || hund.Fields["Example"] != "Der <b>Hund</b> bellt." || len(hund.Cards) != 2 ||
		hund.Cards[0].ID != "c-hund-0" || hund.Cards[1].ID != "c-hund-1" {
		t.Errorf("moved note %+v", hund)
	}
	katze, err := e.svc.Notes.GetNote(ctx, oldNotes[1].ID)
	if err != nil || katze.NoteTypeID != hund.NoteTypeID || katze.Fields["Meaning"] != "the cat" {
		t.Errorf("moved note %+v %v", katze, err)
	}
	if berlin, err := e.svc.Notes.GetNote(ctx, oldNotes[2].ID); err != nil || berlin.NoteType != contracts.NoteTypeBasic {
		t.Errorf("the skipped note changed: %+v %v", berlin, err)
	}

	want := wantVocabCards("der Hund: the dog")
	for k := range want {
		if strings.HasPrefix(k, "{{c1::") {
			delete(want, k)
		}
	}
	want["die Katze/1"] = [2]string{"the cat", "die Katze"}                                             // Vocab makes no second card for it: left as it was
	want["{{c1::Berlin}} is the capital of {{c2::Germany}}./0"] = [2]string{oldCards[4].Front, "Atlas"} // skipped: as it was
	checkCards(t, e.noteCards(ctx), want)
	if c := e.card1(ctx, "c-hund-0"); c.State.Phase != contracts.PhaseReview || c.State.Due.Sub(reviewed.Due).Abs() > 24*time.Hour || c.State.Reps != 3 || c.NoteID != oldNotes[0].ID {
		t.Errorf("reviewed card after the re-import: %+v", c)
	}
	revs, err := e.store.Reviews().ListReviews(ctx, uid, "", 10)
	if err != nil || len(revs) != 1 || revs[0].CardID != "c-hund-0" {
		t.Errorf("review log %+v %v", revs, err)
	}

	// Once moved, a further re-import is an ordinary one.
	rep, err = e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil || rep.NotesUpdated != 2 || rep.NotesCreated != 0 || rep.CardsCreated != 0 {
		t.Errorf("second re-import %+v %v", rep, err)
	}
}

// A converted note whose fields the conversion left as they were (a type
// of its own with two fields and two templates became Basic (and
// reversed card) field for field) still moves to the package's type on a
// re-import, though its fields and tags are unchanged.
func TestReimportConvertedNoteSameFields(t *testing.T) {
	e, _ := newImportEnv(t, onSQLite)
	ctx := e.user("ada@example.com")
	uid := e.uid(ctx)
	deck := e.deck(ctx, "Pairs")
	sum := sha256.Sum256([]byte(uid + "\x00g-pair"))
	id := "n" + hex.EncodeToString(sum[:16])
	at := t0.Add(-time.Hour)
	if err := e.store.Notes().InsertNotes(ctx, uid, []ports.NoteRow{{ID: id, NoteType: contracts.NoteTypeBasicReversed, GUID: "g-pair",
		Fields: []string{"eins", "one"}, Tags: []string{}, Version: 1, CreatedAt: at, UpdatedAt: at}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Cards().InsertCards(ctx, uid, []ports.CardRow{
		{Hash: cardtext.Hash("eins", "one"), Version: 1, Card: contracts.Card{ID: "c-pair-0", DeckID: deck.ID, NoteID: id, Ord: 0, Front: "eins", Back: "one",
			Tags: []string{}, State: contracts.CardState{Phase: contracts.PhaseNew, Due: at}, CreatedAt: at, UpdatedAt: at}},
	}); err != nil {
		t.Fatal(err)
	}
	pkg := ports.AnkiPackage{
		Created: t0.Add(-24 * time.Hour),
		Decks:   []ports.AnkiDeck{{Key: 1, Name: "Pairs", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 1700000000009, Name: "Pair", Fields: []string{"A", "B"}, Templates: []ports.AnkiTemplate{
			{Name: "AB", Front: "Q: {{A}}", Back: "{{FrontSide}}<hr id=answer>{{B}}"}, {Name: "BA", Front: "Q: {{B}}", Back: "{{FrontSide}}<hr id=answer>{{A}}"}}}},
		Notes: []ports.AnkiNote{{Key: 1, GUID: "g-pair", TypeKey: 1700000000009, Fields: []string{"eins", "one"}}},
		Cards: []ports.AnkiCard{{Key: 10, NoteKey: 1, DeckKey: 1, Ord: 0, Position: 1}},
	}
	rep, err := e.svc.Import.Apply(ctx, viaApkg(t, pkg), exchange.ImportOptions{})
	if err != nil || rep.NotesUpdated != 1 || len(rep.Skipped) != 0 {
		t.Fatalf("re-import %+v %v", rep, err)
	}
	n, err := e.svc.Notes.GetNote(ctx, id)
	if err != nil || n.NoteType != "Pair" || !strings.HasPrefix(n.NoteTypeID, ports.NoteTypeIDPrefix) || n.Cards[0].ID != "c-pair-0" || n.Cards[0].Front != "Q: eins" {
		t.Errorf("the note after the re-import: %+v %v", n, err)
	}
}
