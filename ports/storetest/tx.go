package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testTxCommit(t *testing.T, f *fixture) {
	a := f.user()
	d := contracts.Deck{ID: f.id("dck"), Name: "In a tx", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	c := f.card(d.ID, "tx card", "x")
	err := f.s.InTx(f.ctx, func(tx ports.Stores) error {
		if err := tx.Decks().CreateDeck(f.ctx, a, d); err != nil {
			return err
		}
		if err := tx.Cards().InsertCards(f.ctx, a, []ports.CardRow{c}); err != nil {
			return err
		}
		// The transaction reads its own writes.
		got, err := tx.Decks().GetDeck(f.ctx, a, d.ID, f.now)
		if err != nil {
			return err
		}
		if got.Counts.Total != 1 {
			t.Errorf("inside the transaction the deck counts %d cards, want 1", got.Counts.Total)
		}
		return nil
	})
	must(t, err)
	got, err := f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	if got.Counts.Total != 1 {
		t.Errorf("after commit the deck counts %d cards, want 1", got.Counts.Total)
	}
}

func testTxRollbackOnError(t *testing.T, f *fixture) {
	a := f.user()
	kept := f.deck(a, "Kept")
	keptCard := f.insert(a, f.card(kept.ID, "kept", "x"))[0]
	d := contracts.Deck{ID: f.id("dck"), Name: "Rolled back", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	sentinel := errors.New("fn failed")
	err := f.s.InTx(f.ctx, func(tx ports.Stores) error {
		must(t, tx.Decks().CreateDeck(f.ctx, a, d))
		must(t, tx.Cards().InsertCards(f.ctx, a, []ports.CardRow{f.card(d.ID, "gone", "x")}))
		must(t, tx.Cards().UpdateState(f.ctx, a, keptCard.ID, 1, contracts.CardState{Phase: contracts.PhaseReview, Due: f.now}, f.now))
		must(t, tx.Audit().AppendAudit(f.ctx, f.event(a, "add_cards", "key", f.now)))
		return sentinel
	})
	if err != sentinel { //nolint:errorlint // the contract: returned unchanged
		t.Fatalf("InTx returned %v, want fn's error unchanged", err)
	}
	_, err = f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a rolled-back deck")
	sameCard(t, f.get(a, keptCard.ID), keptCard, "a card updated in a rolled-back transaction")
	if ev, _ := f.s.Audit().ListAudit(f.ctx, a, contracts.AuditFilter{}, "", 10); len(ev) != 0 {
		t.Errorf("a rolled-back transaction left %d audit events", len(ev))
	}
	// A contracts error comes back unchanged too.
	conflict := contracts.Errorf(contracts.KindConflict, "stop")
	if err := f.s.InTx(f.ctx, func(tx ports.Stores) error { return conflict }); err != conflict { //nolint:errorlint
		t.Errorf("InTx returned %v, want fn's contracts error unchanged", err)
	}
}

func testTxRollbackOnPanic(t *testing.T, f *fixture) {
	a := f.user()
	d := contracts.Deck{ID: f.id("dck"), Name: "Panicked", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	var err error
	recovered := func() (r any) {
		defer func() { r = recover() }()
		err = f.s.InTx(f.ctx, func(tx ports.Stores) error {
			must(t, tx.Decks().CreateDeck(f.ctx, a, d))
			panic("boom")
		})
		return nil
	}()
	if recovered == nil && err == nil {
		t.Fatal("InTx swallowed fn's panic: neither re-panicked nor returned an error")
	}
	_, err = f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a deck created before a panic")
	// The store stays usable: a panic must not leak a lock or a connection.
	ctx, cancel := context.WithTimeout(f.ctx, 20*time.Second)
	defer cancel()
	for i := range 3 {
		must(t, f.s.InTx(ctx, func(tx ports.Stores) error {
			return tx.Decks().CreateDeck(ctx, a, contracts.Deck{ID: f.id("dck"), Name: "after panic " + itoa(i),
				Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now})
		}))
	}
}

// testTxUsableAfterStoreError checks that a documented failure of a store
// call (a duplicate, a missing row or parent, a stale version) inside a
// transaction leaves no partial effect and does not poison the transaction:
// the domain records a per-item outcome and carries on with the batch.
func testTxUsableAfterStoreError(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Batch")
	bd := f.deck(b, "Theirs")
	existing := f.insert(a, f.card(d.ID, "existing", "x"))[0]
	other := f.insert(a, f.card(d.ID, "other", "x"))[0]
	ok1, ok2 := f.card(d.ID, "ok 1", "x"), f.card(d.ID, "ok 2", "x")
	half := f.card(d.ID, "half", "x")
	err := f.s.InTx(f.ctx, func(tx ports.Stores) error {
		cs := tx.Cards()
		must(t, cs.InsertCards(f.ctx, a, []ports.CardRow{ok1}))
		wantKind(t, cs.InsertCards(f.ctx, a, []ports.CardRow{half, f.card(d.ID, "existing", "x")}), contracts.KindConflict, "duplicate in a tx")
		wantKind(t, cs.InsertCards(f.ctx, a, []ports.CardRow{f.card(bd.ID, "foreign", "x")}), contracts.KindNotFound, "foreign deck in a tx")
		clash := other
		clash.Hash = existing.Hash
		wantKind(t, cs.UpdateCard(f.ctx, a, clash), contracts.KindConflict, "hash clash in a tx")
		moved := other
		moved.DeckID = bd.ID
		wantKind(t, cs.UpdateCard(f.ctx, a, moved), contracts.KindNotFound, "move to a foreign deck in a tx")
		wantKind(t, cs.UpdateCard(f.ctx, a, withVersion(other, 7)), contracts.KindConflict, "stale version in a tx")
		wantKind(t, tx.Decks().CreateDeck(f.ctx, a, contracts.Deck{ID: f.id("dck"), Name: "Batch", Settings: contracts.DefaultDeckSettings(),
			CreatedAt: f.now, UpdatedAt: f.now}), contracts.KindConflict, "duplicate deck name in a tx")
		wantKind(t, tx.Sessions().CompleteItem(f.ctx, a, "ses-missing", 0, f.now), contracts.KindNotFound, "missing session item in a tx")
		_, err := tx.Decks().GetDeck(f.ctx, a, "dck-missing", f.now)
		wantKind(t, err, contracts.KindNotFound, "missing deck in a tx")
		// The transaction carries on.
		must(t, cs.InsertCards(f.ctx, a, []ports.CardRow{ok2}))
		renamed := other
		renamed.Front, renamed.Hash = "renamed", "h:renamed"
		return cs.UpdateCard(f.ctx, a, renamed)
	})
	must(t, err)
	got, err := f.s.Cards().GetCards(f.ctx, a, []string{ok1.ID, ok2.ID, half.ID})
	must(t, err)
	sameSet(t, ids(got), []string{ok1.ID, ok2.ID}, "cards committed around failed calls (nothing of the failed batch)")
	if g := f.get(a, other.ID); g.Front != "renamed" || g.DeckID != d.ID || g.Version != 2 {
		t.Errorf("card after failed and successful updates in one tx: front %q deck %s version %d", g.Front, g.DeckID, g.Version)
	}
}

// testCallTx checks InCallTx: calls on the Database made with its ctx
// join its transaction (they read each other's writes and commit
// together); an InTx inside it that fails rolls back only its own writes
// and leaves the transaction usable (an audit row after a failed audit
// insert: the mutation commits); fn's error rolls everything back; a ctx
// kept past fn works on the database again.
func testCallTx(t *testing.T, f *fixture) {
	a := f.user()
	ctx, cancel := context.WithTimeout(f.ctx, 20*time.Second)
	defer cancel()
	d := contracts.Deck{ID: f.id("dck"), Name: "Call tx", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	dup := f.event(a, "create_deck", "key", f.now)
	must(t, f.s.Audit().AppendAudit(ctx, dup))
	var kept context.Context
	err := f.s.InCallTx(ctx, func(ctx context.Context) error {
		kept = ctx
		must(t, f.s.Decks().CreateDeck(ctx, a, d))
		must(t, f.s.InTx(ctx, func(tx ports.Stores) error {
			// A nested transaction reads the call's writes.
			return tx.Cards().InsertCards(ctx, a, []ports.CardRow{f.card(d.ID, "nested", "x")})
		}))
		if got, err := f.s.Decks().GetDeck(ctx, a, d.ID, f.now); err != nil || got.Counts.Total != 1 {
			t.Errorf("inside the call transaction: deck %+v %v, want it with its one card", got.Counts, err)
		}
		// A failing nested transaction (a duplicate audit row) is rolled
		// back alone.
		err := f.s.InTx(ctx, func(tx ports.Stores) error {
			must(t, tx.Cards().InsertCards(ctx, a, []ports.CardRow{f.card(d.ID, "undone", "x")}))
			return tx.Audit().AppendAudit(ctx, dup)
		})
		wantKind(t, err, contracts.KindConflict, "a duplicate audit row in a call transaction")
		// Nested again, joining: still the one transaction.
		return f.s.InCallTx(ctx, func(ctx context.Context) error {
			return f.s.Audit().AppendAudit(ctx, f.event(a, "create_deck", "key", f.now))
		})
	})
	must(t, err)
	got, err := f.s.Decks().GetDeck(ctx, a, d.ID, f.now)
	must(t, err)
	if got.Counts.Total != 1 {
		t.Errorf("after commit the deck counts %d cards, want the nested one only", got.Counts.Total)
	}
	if ev, _ := f.s.Audit().ListAudit(ctx, a, contracts.AuditFilter{}, "", 10); len(ev) != 2 {
		t.Errorf("after commit %d audit events, want 2", len(ev))
	}
	// The ctx of an ended call transaction runs on the database again.
	must(t, f.s.Audit().AppendAudit(kept, f.event(a, "late", "key", f.now)))

	// fn's error rolls back everything, nested transactions included.
	gone := contracts.Deck{ID: f.id("dck"), Name: "Gone", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	sentinel := errors.New("fn failed")
	err = f.s.InCallTx(ctx, func(ctx context.Context) error {
		must(t, f.s.Decks().CreateDeck(ctx, a, gone))
		must(t, f.s.InTx(ctx, func(tx ports.Stores) error {
			return tx.Audit().AppendAudit(ctx, f.event(a, "gone", "key", f.now))
		}))
		return sentinel
	})
	if err != sentinel { //nolint:errorlint // the contract: returned unchanged
		t.Fatalf("InCallTx returned %v, want fn's error unchanged", err)
	}
	_, err = f.s.Decks().GetDeck(ctx, a, gone.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a deck of a rolled-back call transaction")
	if ev, _ := f.s.Audit().ListAudit(ctx, a, contracts.AuditFilter{Tool: "gone"}, "", 10); len(ev) != 0 {
		t.Errorf("a rolled-back call transaction left %d audit events", len(ev))
	}
}

// testCallTxFailureEnds checks InTx with a ctx saying a failure ends the
// call (ports.FailureEndsCall): it joins the call transaction (reads and
// commits with it), and when it fails, InCallTx rolls everything back and
// returns that failure even though its own fn returns nil; a ctx saying
// false nests under a savepoint again.
func testCallTxFailureEnds(t *testing.T, f *fixture) {
	a := f.user()
	ctx, cancel := context.WithTimeout(f.ctx, 20*time.Second)
	defer cancel()
	d := contracts.Deck{ID: f.id("dck"), Name: "Joined", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	err := f.s.InCallTx(ctx, func(ctx context.Context) error {
		ctx = ports.FailureEndsCall(ctx, true)
		must(t, f.s.InTx(ctx, func(tx ports.Stores) error { return tx.Decks().CreateDeck(ctx, a, d) }))
		// Work whose failure the call survives still nests.
		dup := f.event(a, "dup", "key", f.now)
		must(t, f.s.Audit().AppendAudit(ctx, dup))
		err := f.s.InTx(ports.FailureEndsCall(ctx, false), func(tx ports.Stores) error { return tx.Audit().AppendAudit(ctx, dup) })
		wantKind(t, err, contracts.KindConflict, "a duplicate audit row under a savepoint")
		return f.s.InTx(ctx, func(tx ports.Stores) error {
			return tx.Cards().InsertCards(ctx, a, []ports.CardRow{f.card(d.ID, "joined", "x")})
		})
	})
	must(t, err)
	got, err := f.s.Decks().GetDeck(ctx, a, d.ID, f.now)
	must(t, err)
	if got.Counts.Total != 1 {
		t.Errorf("after commit the joined deck counts %d cards, want 1", got.Counts.Total)
	}
	if ev, _ := f.s.Audit().ListAudit(ctx, a, contracts.AuditFilter{Tool: "dup"}, "", 10); len(ev) != 1 {
		t.Errorf("after commit %d dup audit events, want 1", len(ev))
	}

	// A joined InTx that fails fails the whole call, even when fn goes on
	// and returns nil: nothing of it commits.
	gone := contracts.Deck{ID: f.id("dck"), Name: "Gone joined", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	sentinel := contracts.Errorf(contracts.KindInvalid, "the call's work failed")
	err = f.s.InCallTx(ctx, func(ctx context.Context) error {
		ctx = ports.FailureEndsCall(ctx, true)
		werr := f.s.InTx(ctx, func(tx ports.Stores) error {
			must(t, tx.Decks().CreateDeck(ctx, a, gone))
			return sentinel
		})
		if werr != sentinel { //nolint:errorlint // the contract: returned unchanged
			t.Errorf("joined InTx returned %v, want fn's error unchanged", werr)
		}
		if err := f.s.InTx(ctx, func(ports.Stores) error { return nil }); err == nil {
			t.Error("an InTx after a failed join succeeded; want the failure")
		}
		return nil
	})
	if err != sentinel { //nolint:errorlint // the contract: the join's error
		t.Fatalf("InCallTx after a failed join returned %v, want the join's error", err)
	}
	_, err = f.s.Decks().GetDeck(ctx, a, gone.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a deck written by a failed join")
}
