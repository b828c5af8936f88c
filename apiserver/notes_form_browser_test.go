package apiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserAddNoteOfOwnType: the deck page's add form offers the stock
// note types and the person's own (imported) ones; choosing one shows its
// fields as inputs, and the note it adds has that type, its fields and
// tags, and the cards its templates make (a Cloze note one per deletion).
// The same note again is a duplicate. Without a choice the form is the
// plain front-and-back card it was.
func TestBrowserAddNoteOfOwnType(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	importStyledDeck(t, e, cs)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	types, err := svc.Notes.NoteTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var vocab contracts.NoteTypeInfo
	for _, tp := range types {
		names = append(names, tp.Name)
		if tp.Name == "Vocab" {
			vocab = tp
		}
	}
	if !slices.Equal(names, append(slices.Clone(contracts.StockNoteTypes), "Vocab")) || vocab.ID == "" || !slices.Equal(vocab.Fields, []string{"Word", "Meaning"}) {
		t.Fatalf("note types %+v; want the stock types, then Vocab with Word and Meaning", types)
	}
	decks, err := svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil {
		t.Fatal(err)
	}
	var deckPath string
	for _, d := range decks.Items {
		if d.Name == "Styled" {
			deckPath = "/decks/" + d.ID
		}
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open(deckPath)
	options := evalJS[[]string](b, `[...document.querySelectorAll("#note-type option")].map(o => (o.parentElement.label || "") + ":" + o.textContent)`)
	want := []string{":Card with a front and a back"}
	for _, n := range contracts.StockNoteTypes {
		want = append(want, "Stock note types:"+n)
	}
	want = append(want, "Your note types:Vocab")
	if !slices.Equal(options, want) {
		t.Errorf("the note type choice lists %q, want %q", options, want)
	}
	if !b.exists("#front") || b.exists("#add-note") {
		t.Errorf("without a choice the page does not offer the plain card form:\n%s", b.html())
	}

	// The own type: its fields become the form.
	b.fill("#note-type", vocab.ID)
	b.submit("#choose-note-type")
	labels := evalJS[[]string](b, `[...document.querySelectorAll("#add-note label[for^=field-]")].map(l => l.textContent + "=" + document.getElementById(l.htmlFor).tagName)`)
	if !slices.Equal(labels, []string{"Word=TEXTAREA", "Meaning=TEXTAREA"}) || b.exists("#front") {
		t.Fatalf("the Vocab form has %q, want Word and Meaning inputs only", labels)
	}
	if got := evalJS[string](b, `document.querySelector("#note-type").value`); got != vocab.ID {
		t.Errorf("the choice shows %q after choosing Vocab", got)
	}
	b.look("deck-add-note")
	b.fill("#field-0", "die **Katze**")
	b.fill("#field-1", "the cat")
	b.fill("#note-tags", "Tiere")
	before := e.cardCount(t, deckPath)
	b.submit("#add-note-button")
	if !strings.Contains(b.text(), "Note added") || !strings.Contains(b.location(), "type="+vocab.ID) || !b.exists("#field-0") {
		t.Fatalf("after adding the note, at %s:\n%s", b.location(), b.text())
	}
	if n := e.cardCount(t, deckPath); n != before+1 {
		t.Errorf("%d cards after the Vocab note, want %d", n, before+1)
	}
	page, err := svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: strings.TrimPrefix(deckPath, "/decks/"), Query: "Katze"})
	if err != nil || len(page.Items) != 1 || page.Items[0].NoteID == "" {
		t.Fatalf("the card of the note: %+v, %v", page.Items, err)
	}
	note, err := svc.Notes.GetNote(ctx, page.Items[0].NoteID)
	if err != nil || note.NoteTypeID != vocab.ID || note.Fields["Word"] != "die **Katze**" || note.Fields["Meaning"] != "the cat" || !slices.Equal(note.Tags, []string{"Tiere"}) {
		t.Errorf("the note added through the form: %+v, %v", note, err)
	}

	// The same note again adds nothing.
	b.fill("#field-0", "die **Katze**")
	b.fill("#field-1", "the cat")
	b.submit("#add-note-button")
	if !strings.Contains(b.text(), "already in this deck") || e.cardCount(t, deckPath) != before+1 {
		t.Errorf("the same note again:\n%s", b.text())
	}

	// A stock Cloze note: one card per deletion.
	b.fill("#note-type", contracts.NoteTypeCloze)
	b.submit("#choose-note-type")
	if labels := evalJS[[]string](b, `[...document.querySelectorAll("#add-note label[for^=field-]")].map(l => l.textContent)`); !slices.Equal(labels, []string{"Text", "Back Extra"}) ||
		!strings.Contains(b.textOf("#add-note"), "c1::") {
		t.Fatalf("the Cloze form has %q:\n%s", labels, b.textOf("#add-note"))
	}
	b.fill("#field-0", "{{c1::Berlin}} ist die Hauptstadt {{c2::Deutschlands}}.")
	b.submit("#add-note-button")
	if n := e.cardCount(t, deckPath); n != before+3 {
		t.Errorf("%d cards after the Cloze note, want %d", n, before+3)
	}
	b.checkClean("add note")
}

// TestBrowserEditNote: a card made from a note opens its note's form (the
// type's name, its fields, its tags, the card's deck, how many cards the
// note has). Adding a {{c2::…}} to a Cloze note adds a card; a Cloze text
// without a deletion is refused with the reason and the text kept;
// changing a field of a Basic-and-reversed note changes both its cards. A
// plain card keeps its front-and-back form.
func TestBrowserEditNote(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	ctx := userCtx(t, e, testUser)
	svc := e.app.Services()
	clozeNote, clozeCards := addNote(t, e, ctx, contracts.NoteTypeCloze, map[string]string{"Text": "{{c1::Berlin}} ist die Hauptstadt Deutschlands.", "Back Extra": "seit 1990"})
	_, revCards := addNote(t, e, ctx, contracts.NoteTypeBasicReversed, map[string]string{"Front": "der Hund", "Back": "the dog"})
	clozeCard, err := svc.Cards.GetCard(ctx, clozeCards[0])
	if err != nil {
		t.Fatal(err)
	}
	deckPath := "/decks/" + clozeCard.DeckID
	plain, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: clozeCard.DeckID, Cards: []contracts.NewCard{{Front: "plain Q", Back: "plain A"}}})
	if err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open(deckPath)
	b.submit(`a[href="/cards/` + clozeCards[0] + `/edit"]`)
	labels := evalJS[[]string](b, `[...document.querySelectorAll("#edit-note label[for^=field-]")].map(l => l.textContent + "=" + document.getElementById(l.htmlFor).value)`)
	if !slices.Equal(labels, []string{"Text={{c1::Berlin}} ist die Hauptstadt Deutschlands.", "Back Extra=seit 1990"}) ||
		!strings.Contains(b.textOf("#note-summary"), "Cloze · 1 card.") || b.exists("#front") ||
		evalJS[string](b, `document.querySelector("#note-tags").value`) != "old" || evalJS[string](b, `document.querySelector("#deckId").value`) != clozeCard.DeckID {
		t.Fatalf("the Cloze card's edit page has fields %q:\n%s", labels, b.text())
	}
	b.look("note-edit-cloze")

	// No deletion left: refused, with the domain's reason and the text kept.
	b.fill("#field-0", "Berlin ist die Hauptstadt Deutschlands.")
	b.submit("#save-note")
	if !strings.Contains(b.textOf(".error"), "needs at least one deletion") ||
		evalJS[string](b, `document.querySelector("#field-0").value`) != "Berlin ist die Hauptstadt Deutschlands." {
		t.Fatalf("a Cloze text without a deletion, at %s:\n%s", b.location(), b.text())
	}
	b.look("note-edit-refused")

	// A second deletion makes a second card; the first keeps its id.
	before := e.cardCount(t, deckPath)
	b.fill("#field-0", "{{c1::Berlin}} ist die Hauptstadt {{c2::Deutschlands}}.")
	b.submit("#save-note")
	if !strings.HasSuffix(b.location(), deckPath+"?flash=note-saved") || !strings.Contains(b.text(), "Note saved") {
		t.Fatalf("after saving the Cloze note, at %s:\n%s", b.location(), b.text())
	}
	if n := e.cardCount(t, deckPath); n != before+1 {
		t.Errorf("%d cards after adding c2, want %d", n, before+1)
	}
	note, err := svc.Notes.GetNote(ctx, clozeNote)
	if err != nil || len(note.Cards) != 2 || note.Cards[0].ID != clozeCards[0] || !strings.HasPrefix(note.Cards[1].Front, "Berlin ist die Hauptstadt <span class=\"cloze\">[...]</span>") {
		t.Errorf("the Cloze note after adding c2: %+v, %v", note, err)
	}

	// Basic and reversed: a field feeds both cards.
	b.open("/cards/" + revCards[1] + "/edit")
	if !strings.Contains(b.textOf("#note-summary"), "Basic (and reversed card) · 2 cards.") {
		t.Fatalf("the reversed card's edit page:\n%s", b.text())
	}
	b.look("note-edit-reversed")
	b.fill("#field-1", "the hound")
	b.submit("#save-note")
	for i, want := range [][2]string{{"der Hund", "the hound"}, {"the hound", "der Hund"}} {
		if c, err := svc.Cards.GetCard(ctx, revCards[i]); err != nil || c.Front != want[0] || c.Back != want[1] {
			t.Errorf("card %d of the reversed note: %q / %q, want %q", i+1, c.Front, c.Back, want)
		}
	}

	b.open("/cards/" + plain.Items[0].ID + "/edit")
	if !b.exists("#front") || b.exists("#edit-note") {
		t.Errorf("a plain card's edit page:\n%s", b.html())
	}
	b.checkClean("edit note")
}
