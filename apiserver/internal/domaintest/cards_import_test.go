package domain_test

import (
	"context"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestImportAnkiNotes(t *testing.T) { eachStore(t, testImportAnkiNotes) }

// An Anki 2.1.66 plain-text export: HTML converted, a reversed note makes
// two cards, a cloze note one per deletion, an optional reversed note with
// "Add Reverse" two, decks from the deck column created as named, tags
// kept as written, and what the conversion leaves out counted.
func testImportAnkiNotes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	target := e.deck(ctx, "German")
	text, err := os.ReadFile("../../../domain/cardtext/testdata/anki-2.1.66-notes.txt") // the parser's own fixture
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: target.ID, Text: string(text)})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "created,created,created,created,created,created,created,created,created" {
		t.Fatalf("statuses %s: %+v", got, r.Items)
	}
	if !slices.Equal(r.DecksCreated, []string{"German::Vocab", "German::Grammar"}) {
		t.Errorf("decks created %q", r.DecksCreated)
	}
	if want := map[string]int{"image": 1, "sound": 1}; !maps.Equal(r.Dropped, want) {
		t.Errorf("dropped %v, want %v", r.Dropped, want)
	}
	type card struct {
		line        int
		deck        string
		front, back string
		tags        []string
	}
	want := []card{
		{7, "German::Vocab", "Question", "Answer", []string{"meta"}},
		{8, "German::Vocab", "<b>der Hund</b>", "the dog", []string{"German", "Nouns"}},
		{9, "German::Vocab", "die Katze", "the cat", []string{"German", "Nouns"}},
		{9, "German::Vocab", "the cat", "die Katze", []string{"German", "Nouns"}},
		{10, "German::Grammar", `<span class="cloze">\[...\]</span> Hund bellt.`, "<span class=\"cloze\">Der</span> Hund bellt.\n<i>bellen</i> = to bark", []string{"German", "Verbs"}},
		{10, "German::Grammar", `Der Hund <span class="cloze">\[...\]</span>.`, "Der Hund <span class=\"cloze\">bellt</span>.\n<i>bellen</i> = to bark", []string{"German", "Verbs"}},
		{11, "German", "das Haus", "the house", []string{}},
		{11, "German", "the house", "das Haus", []string{}},
		{12, "German", "Guten Tag\nsagen", `to say "hello"`, []string{}},
	}
	decks := map[string]string{target.ID: "German"}
	page, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range page.Items {
		decks[d.ID] = d.Name
	}
	for i, w := range want {
		it := r.Items[i]
		c, err := e.svc.Cards.GetCard(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if it.Line != w.line || decks[c.DeckID] != w.deck || c.Front != w.front || c.Back != w.back || !slices.Equal(c.Tags, w.tags) {
			t.Errorf("card %d:\n got line %d deck %q %q / %q %q\nwant %+v", i, it.Line, decks[c.DeckID], c.Front, c.Back, c.Tags, w)
		}
		if (it.DeckID != "") != (w.deck != "German") {
			t.Errorf("card %d: outcome deckId %q", i, it.DeckID)
		}
	}

	// Importing again finds every card as a duplicate, in the same decks,
	// and creates no deck.
	again, err := e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: target.ID, Text: string(text)})
	if err != nil {
		t.Fatal(err)
	}
	if again.Counts["duplicate"] != 9 || len(again.DecksCreated) != 0 {
		t.Errorf("second import: %+v", again)
	}
	// A tag filter matches tags written in another case.
	p, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Tags: []string{"german", "VERBS"}})
	if err != nil || len(p.Items) != 2 {
		t.Errorf("tag search: %d cards, %v", len(p.Items), err)
	}
	_ = context.Background
}
