package storetest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testUsage checks the daily write counter and the holdings: a charge
// under the quota counts and says how many cards the account holds; one
// that would pass it changes nothing; a new day starts over; each account
// counts its own; concurrent charges never pass the quota together.
func testUsage(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	u := f.s.Usage()
	decks, cards, err := u.Holdings(f.ctx, a)
	must(t, err)
	if decks != 0 || cards != 0 {
		t.Errorf("Holdings of a new account = %d decks, %d cards", decks, cards)
	}
	d1, d2 := f.deck(a, "One"), f.deck(a, "Two")
	f.insert(a, f.card(d1.ID, "a", "1"), f.card(d1.ID, "b", "2"), f.card(d2.ID, "c", "3"))
	f.deck(b, "Other")
	f.insert(b, f.card(f.deck(b, "Else").ID, "x", "y"))
	decks, cards, err = u.Holdings(f.ctx, a)
	must(t, err)
	if decks != 2 || cards != 3 {
		t.Errorf("Holdings = %d decks, %d cards; want 2, 3", decks, cards)
	}

	charge := func(user, day string, writes, max int) (int, int, bool) {
		t.Helper()
		n, c, ok, err := u.ChargeWrites(f.ctx, user, day, writes, max)
		must(t, err)
		return n, c, ok
	}
	if n, c, ok := charge(a, "2026-03-10", 4, 10); !ok || n != 4 || c != 3 {
		t.Errorf("the first charge = %d, %d cards, %v; want 4, 3, true", n, c, ok)
	}
	if n, _, ok := charge(a, "2026-03-10", 6, 10); !ok || n != 10 {
		t.Errorf("a charge up to the quota = %d, %v; want 10, true", n, ok)
	}
	if _, _, ok := charge(a, "2026-03-10", 1, 10); ok {
		t.Error("a charge over the quota was accepted")
	}
	if n, _, ok := charge(a, "2026-03-10", 0, 10); !ok || n != 10 {
		t.Errorf("the refused charge changed the count: %d, %v; want 10", n, ok)
	}
	if n, _, ok := charge(b, "2026-03-10", 3, 10); !ok || n != 3 {
		t.Errorf("another account's charge = %d, %v; want its own count 3", n, ok)
	}
	if n, _, ok := charge(a, "2026-03-11", 2, 10); !ok || n != 2 {
		t.Errorf("the next day's first charge = %d, %v; want 2 (a new day starts over)", n, ok)
	}
	_, _, _, err = u.ChargeWrites(f.ctx, "usr-missing", "2026-03-10", 1, 10)
	wantKind(t, err, contracts.KindNotFound, "ChargeWrites for a missing user")

	// Inside a transaction that rolls back, the charge goes back too.
	_ = f.s.InTx(f.ctx, func(tx ports.Stores) error {
		_, _, _, err := tx.Usage().ChargeWrites(f.ctx, a, "2026-03-11", 5, 10)
		must(t, err)
		return contracts.Errorf(contracts.KindConflict, "roll back")
	})
	if n, _, _ := charge(a, "2026-03-11", 0, 10); n != 2 {
		t.Errorf("after a rolled-back charge the count is %d, want 2", n)
	}

	// Twenty concurrent charges of 1 against a quota of 10 (2 used): 8 pass.
	var passed atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, ok, err := u.ChargeWrites(f.ctx, a, "2026-03-11", 1, 10)
			if err != nil {
				t.Errorf("concurrent charge: %v", err)
			}
			if ok {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if passed.Load() != 8 {
		t.Errorf("%d of 20 concurrent charges passed a quota with 8 left", passed.Load())
	}
}
