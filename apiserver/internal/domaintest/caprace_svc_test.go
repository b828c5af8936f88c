package domain_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
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

// Sessions on different decks at once never study more than the
// account-wide daily cap together: the decks' own locks do not order
// them, so the cap is checked under the account's own lock. The write
// quota is off (its counter row would order the reviews by chance), and
// several rounds give the race its chances.
func TestConcurrentDecksKeepTheAccountCap(t *testing.T) {
	eachStore(t, testConcurrentDecksKeepTheAccountCap)
}

func testConcurrentDecksKeepTheAccountCap(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(),
		domain.Config{BaseURL: baseURL + "/", Limits: domain.Limits{DailyWrites: -1, MaxCards: -1}})
	const decks, rounds = 4, 6
	for round := range rounds {
		ctx := e.user(fmt.Sprintf("round%d@example.com", round))
		if _, err := e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{NewCardsPerDay: ptr(1)}); err != nil {
			t.Fatal(err)
		}
		sessions := make([]contracts.StudySession, decks)
		for i := range sessions {
			d := e.deck(ctx, fmt.Sprintf("Deck %d", i))
			e.add(ctx, d.ID, manyCards(d.Name, 2)...)
			if sessions[i] = e.start(ctx, d.ID, nil, nil); sessions[i].Current == nil {
				t.Fatalf("round %d: deck %d shows no new card under an account cap of 1 with none studied", round, i)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, decks)
		ready := make(chan struct{})
		for i, s := range sessions {
			wg.Go(func() {
				<-ready
				_, errs[i] = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: s.Current.CardID, Rating: contracts.RatingGood})
			})
		}
		close(ready)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !contracts.IsKind(err, contracts.KindConflict):
				t.Errorf("round %d: a refused rating: %v; want a conflict", round, err)
			case !strings.Contains(err.Error(), "account-wide"):
				t.Errorf("round %d: the refusal %q does not name the account-wide cap", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of %d concurrent ratings of new cards in different decks counted under an account-wide cap of 1; want exactly 1 (%v)", round, ok, decks, errs)
		}
		st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{})
		if err != nil {
			t.Fatal(err)
		}
		if st.CardStates.New != decks*2-1 {
			t.Errorf("round %d: %d new cards left, want %d (one studied)", round, st.CardStates.New, decks*2-1)
		}
	}
}
