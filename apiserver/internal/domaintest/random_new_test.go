package domain_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// The random new-card order draws from every new card of the deck, the
// same all day and another the next (issue 27 §6): a deck of 2,500 new
// cards (more than the 2,000 the order used to shuffle among), 10 a day.
// Two sessions and the snapshot of a day take the same cards; four days
// (nothing studied) draw mostly different cards; cards added after the
// first 2,000 are drawn.
// Injected clock, SQLite and Postgres.
func TestRandomNewOrderDrawsFromEveryCard(t *testing.T) {
	eachStore(t, testRandomNewOrderDrawsFromEveryCard)
}

func testRandomNewOrderDrawsFromEveryCard(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Random")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewOrder: contracts.NewOrderRandom, NewCardsPerDay: ptr(10)}); err != nil {
		t.Fatal(err)
	}
	const total = 2500
	added := map[string]int{} // card id -> place in the order added
	for b := 0; b < total/500; b++ {
		var batch []contracts.NewCard
		for i := range 500 {
			batch = append(batch, card(fmt.Sprintf("card %d", b*500+i), "back"))
		}
		for _, id := range ids(e.add(ctx, d.ID, batch...)) {
			added[id] = len(added)
		}
		e.clock.Advance(time.Second)
	}
	late, seen := 0, map[string]bool{}
	var days [][]string
	for day := range 4 {
		snap, err := e.svc.Study.Snapshot(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		first := e.queued(ctx, d.ID)
		if again := e.queued(ctx, d.ID); len(first) != 10 || !slices.Equal(first, again) {
			t.Fatalf("day %d: two sessions took %v and %v; want the same 10", day, first, again)
		}
		for i, c := range snap.Preview {
			if c.CardID != first[i] {
				t.Errorf("day %d: the snapshot previews %s at %d, the session serves %s", day, c.CardID, i, first[i])
			}
		}
		for _, id := range first {
			seen[id] = true
			if added[id] >= 2000 {
				late++
			}
		}
		days = append(days, first)
		e.clock.Advance(24 * time.Hour)
	}
	// 40 draws from 2,500 cards: each is among the last 500 with
	// probability 1/5, so none of them is (0.8^40 < 1e-3) only when the
	// order draws from a prefix.
	if len(seen) < 30 {
		t.Errorf("4 days drew %d different cards of 2,500: %v", len(seen), days)
	}
	if late == 0 {
		t.Errorf("no card added after the first 2,000 was drawn in 4 days: %v", days)
	}
	t.Logf("%s: %d of 40 cards drawn from the last 500 added", store, late)
}
