package domain_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// Two sessions on one deck at once never study more than the daily cap
// together. The sessions of a learner's day draw the new cards in one
// order (issue 27 §6, as Anki's one order per day), so two sessions
// started together show the same first new card: rated in both at the
// same moment, it counts once and the other rating is a conflict. Two
// sessions showing different new cards while one is left (the learner
// buried the first session's card, started a second session, which drew
// the next card, and unburied it) rate at the same moment, and only one
// rating counts: the other is refused naming the daily limit and records
// nothing. Without the check of the limit in SubmitReview both count.
func TestConcurrentSessionsKeepTheDailyCap(t *testing.T) {
	eachStore(t, testConcurrentSessionsKeepTheDailyCap)
}

func testConcurrentSessionsKeepTheDailyCap(t *testing.T, store string) {
	e := newEnv(t, store)
	// raceDeck is a deck of 12 new cards in random order, one a day.
	raceDeck := func(ctx context.Context) contracts.Deck {
		d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Race", NewCardsPerDay: ptr(1)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewOrder: contracts.NewOrderRandom}); err != nil {
			t.Fatal(err)
		}
		e.add(ctx, d.ID, manyCards("race", 12)...)
		return d
	}
	// race rates each session's current card at the same moment and
	// checks that exactly one rating counted, the other refused with a
	// conflict; it returns the refusal.
	race := func(ctx context.Context, deckID string, sessions ...contracts.StudySession) error {
		t.Helper()
		errs := e.rateAtOnce(ctx, sessions...)
		ok, refused := 0, error(nil)
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !contracts.IsKind(err, contracts.KindConflict):
				t.Errorf("the refused rating: %v; want a conflict", err)
			default:
				refused = err
			}
		}
		if ok != 1 {
			t.Errorf("%d of %d concurrent ratings of new cards counted with a cap of 1 (errors %v); want exactly 1", ok, len(sessions), errs)
		}
		st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: deckID})
		if err != nil {
			t.Fatal(err)
		}
		if st.CardStates.New != 11 {
			t.Errorf("new cards left after the race: %d; want 11 (one studied)", st.CardStates.New)
		}
		return refused
	}

	// The same card: two sessions of the day start with it.
	ada := e.user("ada@example.com")
	d := raceDeck(ada)
	s1, s2 := e.start(ada, d.ID, nil, nil), e.start(ada, d.ID, nil, nil)
	if s1.Current == nil || s2.Current == nil || s1.Current.CardID != s2.Current.CardID {
		t.Fatalf("two sessions of one day show %+v and %+v; want the same first new card", s1.Current, s2.Current)
	}
	race(ada, d.ID, s1, s2)

	// Different cards: the first session's card buried, a second session
	// draws the next; unburied, the first session shows its card again.
	bob := e.user("bob@example.com")
	d = raceDeck(bob)
	s1 = e.start(bob, d.ID, nil, nil)
	if s1.Current == nil {
		t.Fatal("the first session shows no new card")
	}
	s2 = e.startAround(bob, d.ID, []string{s1.Current.CardID})
	if s2.Current == nil || s2.Current.CardID == s1.Current.CardID {
		t.Fatalf("with %s buried the second session shows %+v; want another new card", s1.Current.CardID, s2.Current)
	}
	e.stillShown(bob, s1, s2)
	refused := race(bob, d.ID, s1, s2)
	if refused != nil && !strings.Contains(refused.Error(), "limit of new cards for this deck") {
		t.Errorf("the refusal %q does not name the deck's daily limit", refused)
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
	e := newRaceEnv(t, store)
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
		errs := e.rateAtOnce(ctx, sessions...)
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
