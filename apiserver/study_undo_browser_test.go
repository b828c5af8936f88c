package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserStudyUndoAndSummary: in a study session, U takes back the last
// rating (the card waits again, its schedule as before); the end of the
// session lists each card studied with its rating and next interval, and
// its Undo button reopens the session at the last card.
func TestBrowserStudyUndoAndSummary(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Rivers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: []contracts.NewCard{
		{Front: "Longest river in *France*", Back: "Loire"}, {Front: "River through Vienna", Back: "Danube"},
	}}); err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
	if err != nil || sess.Current == nil {
		t.Fatalf("start: %+v, %v", sess, err)
	}
	first := sess.Current.CardID
	before, err := svc.Cards.GetCard(ctx, first)
	if err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, e)
	b.signIn(testUser)
	b.open("/study/" + sess.ID)
	if b.exists("#undo") {
		t.Fatal("an Undo button before any rating")
	}
	b.key(" ", false)
	b.key("1", true) // Again
	if !b.exists("#undo") || !strings.Contains(b.textOf("#undo-what"), "Again on “Longest river in France”") {
		t.Fatalf("after Again, no Undo naming the rating:\n%s", b.text())
	}
	b.look("study-undo")
	if c, _ := svc.Cards.GetCard(ctx, first); c.State.Phase != contracts.PhaseLearning {
		t.Fatalf("after Again the card is %s, want learning", c.State.Phase)
	}

	b.key("u", true)
	if txt := b.text(); !strings.Contains(txt, "Rating undone") || !strings.Contains(txt, "2 left · 0 done") ||
		!strings.Contains(b.textOf("#front"), "Longest river in France") || b.exists("#undo") {
		t.Fatalf("after U:\n%s", txt)
	}
	if c, _ := svc.Cards.GetCard(ctx, first); c.State.Phase != before.State.Phase || c.State.Reps != before.State.Reps || c.State.LastReview != nil {
		t.Errorf("after undo the card's schedule is %+v, want it as before %+v", c.State, before.State)
	}
	b.look("study-undone")

	// Good, then Easy until the end; the end lists every rating.
	b.key(" ", false)
	b.key("3", true)
	for i := 0; i < 10 && !strings.Contains(b.text(), "Done for now"); i++ {
		e.clock.Advance(11 * time.Minute)
		b.open("/study/" + sess.ID)
		b.key(" ", false)
		b.key("4", true)
	}
	if !strings.Contains(b.text(), "Done for now") {
		t.Fatalf("the session did not end:\n%s", b.text())
	}
	studied, err := svc.Study.Studied(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	rows := evalJS[[]string](b, `Array.from(document.querySelectorAll("#studied tbody tr")).map(r => r.innerText.replace(/\s+/g, " ").trim())`)
	if len(rows) != len(studied) || len(rows) < 2 {
		t.Fatalf("the end lists %q; the session has %d ratings", rows, len(studied))
	}
	labels := map[contracts.Rating]string{contracts.RatingGood: "Good", contracts.RatingEasy: "Easy"}
	for i, st := range studied {
		if !strings.Contains(rows[i], labels[st.Rating]) || !strings.Contains(rows[i], st.IntervalHuman) {
			t.Errorf("row %d %q: want %s and %s", i, rows[i], labels[st.Rating], st.IntervalHuman)
		}
	}
	if !strings.Contains(rows[0], "Longest river in France") || !strings.Contains(rows[0], "Good") {
		t.Errorf("the first row %q: want the first card rated Good", rows[0])
	}
	b.look("study-done-list")

	// Undo at the end reopens the session at the last card.
	last := studied[len(studied)-1]
	b.submit("#undo")
	if strings.Contains(b.text(), "Done for now") || !b.exists("#front") || !strings.Contains(b.text(), "Rating undone") {
		t.Fatalf("after undo at the end:\n%s", b.text())
	}
	if s, _ := svc.Study.GetSession(ctx, sess.ID); s.Current == nil || s.Current.CardID != last.CardID {
		t.Errorf("after undo at the end the session waits on %+v, want %s", s.Current, last.CardID)
	}

	// The audit trail shows the page's ratings, the undo and the sign-in
	// (a security event) beside a key minted in the web app.
	if _, err := svc.Keys.CreateKey(ctx, "laptop", []contracts.Scope{contracts.ScopeDecksRead}, 0); err != nil {
		t.Fatal(err)
	}
	b.open("/audit")
	txt := b.text()
	for _, want := range []string{"Signed in", "API key created", "Rating undone", "Submit review", "You, in the web app", "security"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the audit page lacks %q:\n%s", want, txt)
		}
	}
	b.look("audit-security")
	b.checkClean("undo")
}
