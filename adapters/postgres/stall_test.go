package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// stallPool is the pool size of the stores under test, far below the
// number of concurrent requests.
const stallPool = 3

// stallWorkers is how many requests run at once: many more than the pool
// holds connections, across every instance.
const stallWorkers = 40

// TestNoPoolStall is the regression test for the stall of issue 10 §1.1:
// 50 agents on one instance made calls time out after 60 s because a
// transaction holding a pooled connection waited for a second one (the
// statement cache preparing a new statement on the pool, uncancellably,
// under its lock) while every other connection was held by transactions
// waiting the same way. It runs more concurrent transactions than the
// pool has connections, each using many statements, first on a cold
// statement cache and then warm, on one instance and on two sharing the
// database. Every transaction must commit well within the deadline.
func TestNoPoolStall(t *testing.T) {
	db := freshDatabase(t)
	for _, instances := range []int{1, 2} {
		t.Run(fmt.Sprintf("instances=%d", instances), func(t *testing.T) {
			url := freshSchema(t, db)
			setup := open(t, url, withoutLock())
			users := seedStallUsers(t, setup, stallWorkers)
			// Fresh stores: their statement caches are cold.
			stores := make([]*Store, instances)
			for i := range stores {
				stores[i] = open(t, url, withoutLock(), WithoutMigrate(), WithMaxOpenConns(stallPool))
			}
			// "outside" also reads through the store outside the transaction
			// while it is open (what the domain must not do): the
			// connections kept free of transactions still serve it.
			for _, phase := range []string{"cold", "warm", "outside"} {
				runStallRound(t, phase, stores, users)
			}
		})
	}
}

// stallUser is one worker's account and deck.
type stallUser struct{ id, deck string }

// seedStallUsers creates n users with a deck each through setup (another
// store, so the stores under test start cold).
func seedStallUsers(t *testing.T, setup *Store, n int) []stallUser {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	users := make([]stallUser, n)
	for i := range users {
		u := stallUser{id: fmt.Sprintf("usr-stall-%03d", i), deck: fmt.Sprintf("dck-stall-%03d", i)}
		if err := setup.Users().CreateUser(ctx, contracts.User{ID: u.id, Email: u.id + "@example.com", Name: u.id, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		d := contracts.Deck{ID: u.deck, Name: "deck", Settings: contracts.DefaultDeckSettings(), CreatedAt: now, UpdatedAt: now}
		if err := setup.Decks().CreateDeck(ctx, u.id, d); err != nil {
			t.Fatal(err)
		}
		users[i] = u
	}
	return users
}

// runStallRound runs one transaction per user at once, spread over the
// stores, and fails when any fails or when they do not all finish in time.
func runStallRound(t *testing.T, phase string, stores []*Store, users []stallUser) {
	t.Helper()
	// Each request gets a deadline, as the service gives it; a stall shows
	// as requests running into it (or, when the wait ignores the context,
	// as the round not finishing at all).
	const deadline = 20 * time.Second
	errs := make([]error, len(users))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			errs[i] = stallRequest(ctx, stores[i%len(stores)], u, phase)
		}()
	}
	began := time.Now()
	close(start)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(deadline + 10*time.Second):
		t.Fatalf("%s: %d concurrent transactions on %d instance(s) with %d connections each did not finish in %v: the pool stalled",
			phase, len(users), len(stores), stallPool, deadline+10*time.Second)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: request %d: %v", phase, i, err)
		}
	}
	t.Logf("%s: %d transactions on %d instance(s) × %d connections in %v", phase, len(users), len(stores), stallPool, time.Since(began).Round(time.Millisecond))
}

// stallRequest is one request's transaction: the statements of adding a
// card, starting a session and reviewing it, several of them met for the
// first time on a cold cache.
func stallRequest(ctx context.Context, s *Store, u stallUser, phase string) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	cardID := "crd-" + phase + "-" + u.id
	sessionID := "ses-" + phase + "-" + u.id
	return s.InTx(ctx, func(tx ports.Stores) error {
		if _, err := tx.Decks().DeckWithoutCounts(ctx, u.id, u.deck); err != nil {
			return err
		}
		if phase == "outside" {
			if _, err := s.Users().UserByID(ctx, u.id); err != nil {
				return err
			}
		}
		c := ports.CardRow{Card: contracts.Card{ID: cardID, DeckID: u.deck, Front: "front " + phase, Back: "back",
			State: contracts.CardState{Phase: contracts.PhaseNew, Due: now}, CreatedAt: now, UpdatedAt: now}, Hash: "h-" + phase}
		if _, err := tx.Cards().HashesInDeck(ctx, u.id, u.deck, []string{c.Hash}); err != nil {
			return err
		}
		if err := tx.Cards().InsertCards(ctx, u.id, []ports.CardRow{c}); err != nil {
			return err
		}
		if err := tx.Sessions().CreateSession(ctx, ports.StudySessionRow{ID: sessionID, UserID: u.id, DeckID: u.deck,
			StartedAt: now, ExpiresAt: now.Add(time.Hour)}, []string{cardID}); err != nil {
			return err
		}
		item, err := tx.Sessions().NextItem(ctx, u.id, sessionID)
		if err != nil {
			return err
		}
		if item == nil {
			return fmt.Errorf("the new session has no pending item")
		}
		got, err := tx.Cards().GetCards(ctx, u.id, []string{cardID})
		if err != nil {
			return err
		}
		if len(got) != 1 {
			return fmt.Errorf("GetCards returned %d cards", len(got))
		}
		if err := tx.Sessions().CompleteItem(ctx, u.id, sessionID, item.Position, now); err != nil {
			return err
		}
		state := contracts.CardState{Phase: contracts.PhaseLearning, Due: now.Add(time.Minute), Stability: 1, Difficulty: 5, Reps: 1, LastReview: &now}
		if err := tx.Cards().UpdateState(ctx, u.id, cardID, got[0].Version, state, now); err != nil {
			return err
		}
		if err := tx.Reviews().AppendReview(ctx, ports.ReviewLog{ID: "rev-" + phase + "-" + u.id, UserID: u.id, CardID: cardID,
			DeckID: u.deck, SessionID: sessionID, Rating: contracts.RatingGood, PrevPhase: contracts.PhaseNew, State: state,
			ReviewedAt: now, DurationMs: 1000}); err != nil {
			return err
		}
		_, _, err = tx.Sessions().Progress(ctx, u.id, sessionID)
		return err
	})
}
