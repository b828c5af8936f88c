package domain_test

import (
	"sync"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// Two sessions on one deck at once never study more than the daily cap
// together: each shows a different new card while one is left, both rate
// at the same moment, and only one rating counts; the other is refused
// with a reason and records nothing.
func TestConcurrentSessionsKeepTheDailyCap(t *testing.T) {
	eachStore(t, testConcurrentSessionsKeepTheDailyCap)
}

func testConcurrentSessionsKeepTheDailyCap(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Race", NewCardsPerDay: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewOrder: contracts.NewOrderRandom}); err != nil {
		t.Fatal(err)
	}
	e.add(ctx, d.ID, manyCards("race", 12)...)
	// Two sessions whose first cards differ (the order is random per session).
	var s1, s2 contracts.StudySession
	for tries := 0; ; tries++ {
		s1, s2 = e.start(ctx, d.ID, nil, nil), e.start(ctx, d.ID, nil, nil)
		if s1.Current != nil && s2.Current != nil && s1.Current.CardID != s2.Current.CardID {
			break
		}
		if tries == 20 {
			t.Fatal("no two sessions with different first cards in 20 tries")
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []contracts.StudySession{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: s.Current.CardID, Rating: contracts.RatingGood})
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !contracts.IsKind(err, contracts.KindConflict) {
			t.Errorf("the refused rating: %v; want a conflict", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of two concurrent ratings of new cards counted with a cap of 1 (errors %v); want exactly 1", ok, errs)
	}
	st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if st.CardStates.New != 11 {
		t.Errorf("new cards left after the race: %d; want 11 (one studied)", st.CardStates.New)
	}
}
