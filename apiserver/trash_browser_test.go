package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserTrash: the Settings › Trash page lists a deck deleted from its
// page and a card deleted by an agent, with when each is deleted for good;
// its Restore buttons (forms with the CSRF token) bring the deck back with
// its review history, refuse the card while a card added since duplicates
// it (saying so), and each restore writes restore_items' audit row.
func TestBrowserTrash(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Rivers of Europe"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Capitals"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: []contracts.NewCard{
		{Front: "Longest river in France", Back: "Loire"}, {Front: "River through Vienna", Back: "Danube"}}}); err != nil {
		t.Fatal(err)
	}
	added, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: other.ID, Cards: []contracts.NewCard{
		{Front: "Capital of Türkiye, a city that became the capital in 1923 when the republic was founded", Back: "Ankara"}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
	if err != nil {
		t.Fatal(err)
	}
	pos := sess.Current.Position
	if _, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: sess.Current.CardID, Position: &pos, Rating: contracts.RatingGood}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: []string{added.Items[0].ID}}); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/decks/" + deck.ID + "/delete")
	if !strings.Contains(b.text(), "restore them there for 30 days") {
		t.Errorf("the delete confirmation does not mention the trash:\n%s", b.text())
	}
	b.submit("form[action$='/delete'] button[type=submit]")
	b.open("/settings/trash")
	txt := b.text()
	for _, want := range []string{"Rivers of Europe", "(2 cards)", "Capital of Türkiye", "in Capitals", "deleted for good"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the Trash page lacks %q:\n%s", want, txt)
		}
	}
	b.look("trash")

	// The card is refused while a card added since duplicates it.
	if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: other.ID, Cards: []contracts.NewCard{
		{Front: "Capital of Türkiye, a city that became the capital in 1923 when the republic was founded", Back: "Ankara"}}}); err != nil {
		t.Fatal(err)
	}
	b.submit("form:has(input[value='" + added.Items[0].ID + "']) button")
	if txt := b.text(); !strings.Contains(txt, "Not restored") || !strings.Contains(txt, "same front and back was added") {
		t.Errorf("restoring a duplicated card:\n%s", txt)
	}
	b.look("trash-refused")

	b.submit("form:has(input[value='" + deck.ID + "']) button")
	if txt := b.text(); !strings.Contains(txt, "Restored: the deck is back") || strings.Contains(txt, "Rivers of Europe") {
		t.Errorf("after restoring the deck:\n%s", txt)
	}
	d, err := svc.Decks.GetDeck(ctx, deck.ID)
	if err != nil || d.Counts.Total != 2 {
		t.Fatalf("the restored deck: %+v, %v", d.Counts, err)
	}
	st, err := svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: deck.ID})
	if err != nil || st.TotalReviews != 1 {
		t.Errorf("the restored deck's reviews: %d, %v; want 1", st.TotalReviews, err)
	}
	events, err := e.app.AuditTrail(ctx, testUser, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range events {
		if ev.Tool == contracts.ToolRestoreItems {
			n++
			if ev.CredentialKind != contracts.CredentialSession || len(ev.AffectedIDs) != 1 || ev.AffectedIDs[0] != deck.ID {
				t.Errorf("the page's restore audit row: %+v", ev)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d restore_items audit rows, want 1 (the refused restore changed nothing)", n)
	}
}
