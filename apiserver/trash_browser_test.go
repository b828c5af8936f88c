package apiserver_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

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

// TestBrowserTrashPages: a trash of more than one page (50 items a page)
// shows the newest 50 first with an "Older items" link and no way back;
// the older page shows the rest, oldest last, with a "Newest items" link
// and no further "Older"; that link brings the first page back.
func TestBrowserTrashPages(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Elements"})
	if err != nil {
		t.Fatal(err)
	}
	// 55 cards, deleted one by one a minute apart: card 1 is the oldest.
	var cards []contracts.NewCard
	for i := 1; i <= 55; i++ {
		cards = append(cards, contracts.NewCard{Front: fmt.Sprintf("Element number %d", i), Back: fmt.Sprintf("Z=%d", i)})
	}
	added, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: cards})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range added.Items {
		e.clock.Advance(time.Minute)
		if _, err := svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: []string{it.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	// The newest item is a deck.
	e.clock.Advance(time.Minute)
	gone, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Noble gases"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: gone.ID}); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	// shown lists the fronts (or deck names) the page shows, in order.
	shown := func() []string {
		return evalJS[[]string](b, `[...document.querySelectorAll(".trash-item .trash-name")].map(p => p.textContent.replace(/\s+/g, " ").trim())`)
	}
	firstPage := func(where string) {
		t.Helper()
		items := shown()
		if len(items) != 50 || !strings.Contains(items[0], "Noble gases") || !strings.Contains(items[1], "Element number 55 ") ||
			!strings.Contains(items[49], "Element number 7 ") {
			t.Fatalf("%s: %d items %q … %q; want Noble gases, then elements 55 down to 7", where, len(items), items[0], items[len(items)-1])
		}
		if !b.exists("#trash-older") || b.exists("#trash-newest") {
			t.Errorf("%s: Older link %v, Newest link %v; want only Older", where, b.exists("#trash-older"), b.exists("#trash-newest"))
		}
	}

	b.open("/settings/trash")
	firstPage("the first page")
	b.look("trash-first-page")

	b.submit("#trash-older")
	if !strings.Contains(b.location(), "cursor=") {
		t.Errorf("the older page is at %s", b.location())
	}
	items := shown()
	if len(items) != 6 || !strings.Contains(items[0], "Element number 6 ") || !strings.Contains(items[5], "Element number 1 ") {
		t.Fatalf("the older page shows %q; want elements 6 down to 1", items)
	}
	if b.exists("#trash-older") {
		t.Error("the last page still links to older items")
	}
	if txt := b.text(); !strings.Contains(txt, "Newest items") || strings.Contains(txt, "The trash is empty") {
		t.Errorf("the older page says:\n%s", txt)
	}
	b.look("trash-older-page")

	b.submit("#trash-newest")
	if loc := b.location(); loc != "/settings/trash" {
		t.Errorf("Newest items leads to %s", loc)
	}
	firstPage("back on the first page")

	// A page past everything says so, and still leads back.
	b.open("/settings/trash?cursor=" + url.QueryEscape(evalJS[string](b, `new URL(document.querySelector("#trash-older").href).searchParams.get("cursor")`)))
	for _, it := range added.Items[:6] {
		if _, err := svc.Trash.RestoreItems(ctx, contracts.RestoreItemsArgs{CardIDs: []string{it.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	b.open(b.location())
	if txt := b.text(); !strings.Contains(txt, "Nothing older is in the trash") || !b.exists("#trash-newest") || b.exists("#trash-older") {
		t.Errorf("an emptied older page says:\n%s", txt)
	}
}
