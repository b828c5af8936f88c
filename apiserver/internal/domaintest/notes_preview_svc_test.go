package domain_test

import (
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestPreviewNote: the editor's preview makes the cards add_notes would
// make (a stock cloze type's two cards, an own type's templates with
// their conditionals) and stores nothing; an unknown field, a gone own
// type and another user's type are refused.
func TestPreviewNote(t *testing.T) { eachStore(t, testPreviewNote) }

func testPreviewNote(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	vocab := putVocabType(t, e, ctx, "nt_vocab1", "Vocab")

	cards, err := e.svc.Notes.PreviewNote(ctx, contracts.NoteTypeCloze, map[string]string{"Text": "{{c1::Paris}} is in {{c2::France}}"})
	if err != nil || len(cards) != 2 || !strings.Contains(cards[0].Front, `<span class="cloze">[...]</span> is in France`) {
		t.Fatalf("cloze preview: %+v, %v", cards, err)
	}
	cards, err = e.svc.Notes.PreviewNote(ctx, vocab.ID, map[string]string{"Word": "der Hund", "Meaning": "the dog"})
	if err != nil || len(cards) != 2 || !strings.Contains(cards[1].Front, "Say: the dog") || strings.Contains(cards[0].Back, "<i>") {
		t.Fatalf("own type preview: %+v, %v", cards, err)
	}
	if cards, err = e.svc.Notes.PreviewNote(ctx, vocab.ID, map[string]string{"Word": "die Katze", "Example": "Die Katze schläft."}); err != nil || len(cards) != 1 {
		t.Errorf("without a Meaning the own type makes %d cards (%v), want the Recognise card only", len(cards), err)
	}
	_, err = e.svc.Notes.PreviewNote(ctx, contracts.NoteTypeBasic, map[string]string{"Nope": "x"})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Notes.PreviewNote(ctx, "nt_gone", map[string]string{"Word": "x"})
	wantKind(t, err, contracts.KindNotFound)
	other := e.user("bob@example.com")
	_, err = e.svc.Notes.PreviewNote(other, vocab.ID, map[string]string{"Word": "x"})
	wantKind(t, err, contracts.KindNotFound)
	page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("previews stored %d cards (%v)", len(page.Items), err)
	}
}
