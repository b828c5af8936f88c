package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUserIsolation: user B can neither see nor touch user A's deck, cards,
// session or keys; everything of A's is simply not found for B.
func TestUserIsolation(t *testing.T) { eachStore(t, testUserIsolation) }

func testUserIsolation(t *testing.T, store string) {
	e := newEnv(t, store)
	a := e.user("ada@example.com")
	b := e.user("bob@example.com")
	d := e.deck(a, "Ada's")
	cs := ids(e.add(a, d.ID, card("secret", "front"), card("other", "back")))
	s := e.start(a, d.ID, nil, nil)
	aID, _ := contracts.UserID(a)
	k, err := e.svc.Keys.CreateKey(as(aID, contracts.CredentialLocal), "k", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	if err != nil {
		t.Fatal(err)
	}

	_, err = e.svc.Decks.GetDeck(b, d.ID)
	wantKind(t, err, contracts.KindNotFound)
	if p, _ := e.svc.Decks.ListDecks(b, contracts.ListDecksArgs{}); len(p.Items) != 0 {
		t.Errorf("bob lists %d decks", len(p.Items))
	}
	_, err = e.svc.Decks.UpdateDeck(b, contracts.UpdateDeckArgs{DeckID: d.ID, Name: ptr("mine")})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Decks.DeleteDeck(b, contracts.DeleteDeckArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Cards.AddCards(b, contracts.AddCardsArgs{DeckID: d.ID, Cards: []contracts.NewCard{card("x", "y")}})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Cards.ImportCards(b, contracts.ImportCardsArgs{DeckID: d.ID, Text: "x,y"})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Cards.GetCard(b, cs[0])
	wantKind(t, err, contracts.KindNotFound)
	if p, _ := e.svc.Cards.SearchCards(b, contracts.SearchCardsArgs{Query: "secret"}); len(p.Items) != 0 {
		t.Errorf("bob finds %d of ada's cards", len(p.Items))
	}
	_, err = e.svc.Cards.SearchCards(b, contracts.SearchCardsArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	up, _ := e.svc.Cards.UpdateCards(b, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: cs[0], Front: ptr("pwned")}}})
	del, _ := e.svc.Cards.DeleteCards(b, contracts.DeleteCardsArgs{CardIDs: cs})
	if statuses(up) != "not_found" || statuses(del) != "not_found,not_found" {
		t.Errorf("bob's update %s, delete %s", statuses(up), statuses(del))
	}
	// Moving one's own card into someone else's deck: target not found.
	bd := e.deck(b, "Bob's")
	bc := ids(e.add(b, bd.ID, card("bob", "card")))
	mv, _ := e.svc.Cards.UpdateCards(b, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: bc[0], DeckID: ptr(d.ID)}}})
	if statuses(mv) != "not_found" {
		t.Errorf("move into ada's deck: %s", statuses(mv))
	}

	_, err = e.svc.Study.GetSession(b, s.ID)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.SubmitReview(b, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[0], Rating: contracts.RatingGood})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.StartSession(b, contracts.StartStudySessionArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.Snapshot(b, d.ID)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Stats.Stats(b, contracts.GetStatsArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Stats.Plan(b, contracts.GetStudyPlanArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	wantKind(t, e.svc.Keys.RevokeKey(b, k.Key.ID), contracts.KindNotFound)
	if keys, _ := e.svc.Keys.ListKeys(b); len(keys) != 0 {
		t.Errorf("bob lists %d keys", len(keys))
	}

	// Ada's things are intact.
	c, err := e.svc.Cards.GetCard(a, cs[0])
	if err != nil || c.Front != "secret" {
		t.Errorf("ada's card = %+v, %v", c, err)
	}
	e.clock.Advance(time.Second)
	if _, err := e.svc.Study.SubmitReview(a, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[0], Rating: contracts.RatingGood}); err != nil {
		t.Errorf("ada's own review: %v", err)
	}
}
