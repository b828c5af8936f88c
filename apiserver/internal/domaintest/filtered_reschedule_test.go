package domain_test

import (
	"context"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestRescheduleHeldCard: reschedule_cards on a card a filtered deck
// holds logs its manual entry under the card's home deck, as a review in
// a filtered deck is logged, so the home deck's history keeps it.
func TestRescheduleHeldCard(t *testing.T) { eachStore(t, testRescheduleHeldCard) }

func testRescheduleHeldCard(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	home := e.deck(ctx, "Home")
	cardID := ids(e.add(ctx, home.ID, card("held", "x")))[0]
	e.review(ctx, e.start(ctx, home.ID, nil, nil).ID, cardID, contracts.RatingEasy)
	fd, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "Cram", Search: ptr("")})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := e.svc.Cards.GetCard(ctx, cardID); err != nil || c.DeckID != fd.DeckID {
		t.Fatalf("the card is in deck %s (%v), want the filtered deck %s", c.DeckID, err, fd.DeckID)
	}
	if res, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: []string{cardID}, Days: []int{3, 3}}); err != nil || len(res.Items) != 1 || res.Items[0].Status != "updated" {
		t.Fatalf("reschedule_cards = %+v, %v", res, err)
	}
	var logs []ports.ReviewLog
	if err := e.store.InTx(context.Background(), func(tx ports.Stores) error {
		logs, err = tx.Reviews().CardReviews(context.Background(), mustUser(t, ctx), cardID, 10)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Rating != "manual" || logs[0].DeckID != home.ID || logs[1].DeckID != home.ID {
		t.Fatalf("the card's log: %+v; want its review and then the manual entry, both under the home deck %s", logs, home.ID)
	}
}
