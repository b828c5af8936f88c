package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
)

// An account holds at most Limits.MaxKeys live API keys, counted in the
// database so every instance agrees (issue 30, item 5: 61 keys minted in a
// row, each with its own budget). The refusal names the limit and writes
// nothing; a revoked or expired key frees its place; another account has
// its own count.
func TestKeyCap(t *testing.T) { eachStore(t, testKeyCap) }

func testKeyCap(t *testing.T, store string) {
	e := newEnv(t, store)
	var refused []string
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, nil,
		domain.Config{Limits: domain.Limits{MaxKeys: 3, OnRefusal: func(l string) { refused = append(refused, l) }}})
	bg := context.Background()
	u, _ := e.svc.Accounts.CreateUser(bg, "ada@example.com", "")
	v, _ := e.svc.Accounts.CreateUser(bg, "bob@example.com", "")
	ada, bob := as(u.ID, contracts.CredentialSession), as(v.ID, contracts.CredentialSession)
	mint := func(ctx context.Context, expiresIn time.Duration) (contracts.NewAPIKey, error) {
		return e.svc.Keys.CreateKey(ctx, "k", []contracts.Scope{contracts.ScopeDecksRead}, expiresIn)
	}
	first, err := mint(ada, 0)
	if err != nil {
		t.Fatal(err)
	}
	short, err := mint(ada, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mint(ada, 0); err != nil {
		t.Fatal(err)
	}
	_, err = mint(ada, 0)
	r, ok := contracts.RefusalOf(err)
	if !contracts.IsKind(err, contracts.KindRateLimited) || !ok || r.Limit != contracts.LimitKeys ||
		!strings.Contains(contracts.MessageOf(err), "the limit is 3") {
		t.Fatalf("a 4th live key: %v, want the keys limit's refusal", err)
	}
	if keys, _ := e.svc.Keys.ListKeys(ada); len(keys) != 3 {
		t.Errorf("after the refusal the account lists %d keys, want 3", len(keys))
	}
	if len(refused) != 1 || refused[0] != contracts.LimitKeys {
		t.Errorf("refusals counted: %v", refused)
	}
	if _, err := mint(bob, 0); err != nil {
		t.Errorf("another account's first key: %v", err)
	}
	// A revoked key and an expired one free their places.
	if err := e.svc.Keys.RevokeKey(ada, first.Key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mint(ada, 0); err != nil {
		t.Errorf("after a revocation: %v", err)
	}
	e.clock.Advance(2 * time.Minute) // short has expired
	if _, err := mint(ada, 0); err != nil {
		t.Errorf("after %s expired: %v", short.Key.ID, err)
	}
	if _, err := mint(ada, 0); !contracts.IsKind(err, contracts.KindRateLimited) {
		t.Errorf("past the cap again: %v", err)
	}
}
