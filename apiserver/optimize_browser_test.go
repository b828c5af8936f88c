package apiserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver/internal/learnersim"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// TestOptimiseWeightsInABrowser: on a deck's settings page, the button
// starts optimize_parameters for the deck's preset; the page follows the
// job and shows log loss and RMSE (bins) before and after on the held-out
// reviews; the fitted weights are applied, and the page then says when.
func TestOptimiseWeightsInABrowser(t *testing.T) {
	dbURL := sqliteURL(t)
	e := newEnv(t, dbURL, nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	bg := context.Background()
	u, err := e.app.Services().Accounts.UserByEmail(bg, testUser)
	if err != nil {
		t.Fatal(err)
	}
	ctx := contracts.WithPrincipal(bg, contracts.Principal{UserID: u.ID, CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
	d, err := e.app.Services().Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Learner"})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([]contracts.NewCard, 200)
	for i := range cards {
		cards[i] = contracts.NewCard{Front: fmt.Sprintf("question %d", i), Back: "answer"}
	}
	added, err := e.app.Services().Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID, Cards: cards})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range added.Items {
		ids = append(ids, it.ID)
	}
	// A year-like history written straight into the store the server uses.
	logs, _, err := learnersim.Log(learnersim.Config{UserID: u.ID, Deck: d, CardIDs: ids, Days: 120, End: e.clock.Now(), Seed: 3,
		NewID: domain.RandomIDs{}.NewID, Day: contracts.NewLearnerDay(contracts.DefaultAccountSettings())}, fsrs.New())
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(bg, strings.TrimPrefix(dbURL, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.InTx(bg, func(tx ports.Stores) error {
		for _, l := range logs {
			if err := tx.Reviews().AppendReview(bg, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	b.open("/decks/" + d.ID + "/settings")
	if !strings.Contains(b.text(), "never fitted to your reviews") {
		t.Errorf("before: the page says\n%s", b.text())
	}
	b.submit(`form[action="/decks/` + d.ID + `/optimize"] button`)
	where := b.location()
	if !strings.Contains(where, "job=") {
		t.Fatalf("after the button the page is %s", where)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(b.text(), "applied") && !strings.Contains(b.text(), "unchanged") && !strings.Contains(b.text(), "failed") {
		if time.Now().After(deadline) {
			t.Fatalf("the job did not end in 90 s; the page says\n%s", b.text())
		}
		// The page reads the running job's panel again by itself and
		// reloads when the job ends (app.js, data-refresh); navigating
		// here as well would race that reload (net::ERR_ABORTED).
		time.Sleep(time.Second)
	}
	txt := b.text()
	for _, want := range []string{"New weights applied.", "Log loss", "RMSE (bins)", "Before", "Fitted", "held out from the fit"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the finished job's panel lacks %q:\n%s", want, txt)
		}
	}
	if b.exists("[data-refresh]") {
		t.Error("the finished job's page still reloads itself")
	}
	b.look("deck-optimise")
	got, err := e.app.Services().Decks.GetDeck(ctx, d.ID)
	if err != nil || got.Settings.WeightsOptimizedAt == nil {
		t.Fatalf("after the job: %+v, %v; want the weights' optimisation time", got.Settings, err)
	}
	b.open("/decks/" + d.ID + "/settings")
	if !strings.Contains(b.text(), "fitted to your reviews on") {
		t.Errorf("after: the page says\n%s", b.text())
	}
}
