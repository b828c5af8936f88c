package storetest

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testKeyCap: CreateKeyWithin inserts a key only while the user holds
// fewer than max live keys (revoked and expired ones do not count), for
// that user alone, and concurrent mints never pass max together.
func testKeyCap(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	keys := f.s.Keys()
	key := func(user string, at time.Time) ports.APIKeyRow {
		return ports.APIKeyRow{UserID: user, Hash: []byte(f.id("h")),
			APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "k", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "hint00", CreatedAt: at}}
	}
	mint := func(k ports.APIKeyRow, max, wantHeld int, wantCreated bool) {
		t.Helper()
		held, created, err := keys.CreateKeyWithin(f.ctx, k, max)
		must(t, err)
		if held != wantHeld || created != wantCreated {
			t.Errorf("CreateKeyWithin(max %d) = held %d created %v, want held %d created %v", max, held, created, wantHeld, wantCreated)
		}
	}
	k1 := key(a, f.now)
	mint(k1, 2, 0, true)
	mint(key(a, f.now), 2, 1, true)
	refused := key(a, f.now)
	mint(refused, 2, 2, false)
	if _, err := keys.KeyByID(f.ctx, refused.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("a refused key was stored: %v", err)
	}
	mint(key(b, f.now), 2, 0, true) // another user's count is their own

	// A revoked key and an expired one do not count.
	must(t, keys.RevokeKey(f.ctx, a, k1.ID, f.now))
	expired := key(a, f.now.Add(-2*time.Hour))
	past := f.now.Add(-time.Hour)
	expired.ExpiresAt = &past
	must(t, keys.CreateKey(f.ctx, expired))
	mint(key(a, f.now), 2, 1, true)
	mint(key(a, f.now), 2, 2, false)

	_, _, err := keys.CreateKeyWithin(f.ctx, key("user-missing", f.now), 2)
	wantKind(t, err, contracts.KindNotFound, "CreateKeyWithin for a missing user")
	dup := key(b, f.now)
	mint(dup, 5, 1, true)
	_, _, err = keys.CreateKeyWithin(f.ctx, dup, 5)
	wantKind(t, err, contracts.KindConflict, "CreateKeyWithin with a taken id")

	// Concurrent mints: exactly max win.
	c := f.user()
	const max = 3
	created := make([]bool, workers)
	errs := race(workers, func(i int) error {
		_, ok, err := keys.CreateKeyWithin(f.ctx, key(c, f.now), max)
		created[i] = ok
		return err
	})
	n := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent mint %d: %v", i, err)
		}
		if created[i] {
			n++
		}
	}
	list, err := keys.ListKeys(f.ctx, c)
	must(t, err)
	if n != max || len(list) != max {
		t.Errorf("%d concurrent mints under a cap of %d: %d reported created, %d stored", workers, max, n, len(list))
	}
}
