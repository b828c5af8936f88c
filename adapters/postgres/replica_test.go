package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/pgcluster"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// replicaEnv names the folder of the PostgreSQL server binaries (initdb,
// pg_ctl, pg_basebackup) the read-replica tests run a private primary and
// streaming replica with (make replica-test sets it).
const replicaEnv = "TAKHTABUSH_TEST_PGBIN"

// streamingPair starts a private primary and a streaming replica of it,
// both stopped when the test ends.
func streamingPair(t *testing.T) (primary, standby *pgcluster.Cluster) {
	t.Helper()
	bin := os.Getenv(replicaEnv)
	if bin == "" {
		t.Skip(replicaEnv + " is not set (make replica-test sets it)")
	}
	p, err := pgcluster.StartPair(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Log(err)
		}
	})
	return p.Primary, p.Standby
}

// Lag-tolerant reads go to a real streaming replica; a principal that
// just wrote reads its own writes (from the primary), on the instance it
// wrote through and on another; when the replica goes away, reads fall
// back to the primary at once and keep working; when it comes back, it
// serves again.
func TestReadReplica(t *testing.T) {
	primary, standby := streamingPair(t)
	ctx := context.Background()
	a, err := OpenRouted(ctx, primary.URL(), []string{standby.URL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenRouted(ctx, primary.URL(), []string{standby.URL()}, nil) // a second instance
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, r := range []*Routed{a, b} {
		if !r.reps[0].healthy.Load() {
			t.Fatal("the replica is not serving after start")
		}
	}
	t.Logf("measured replica lag: %s", time.Duration(a.reps[0].lag.Load()))

	// A reader who has not written: its list comes from the replica.
	reader := newReplicaUser(t, a, "reader@example.com")
	waitReplayed(t, a)
	as := func(u contracts.User) context.Context {
		return contracts.WithPrincipal(ctx, contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey})
	}
	before := b.ReplicaReads()
	if _, err := b.Decks().ListDecks(as(reader), reader.ID, "", 10, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b.ReplicaReads() != before+1 {
		t.Fatalf("a principal without recent writes did not read from the replica")
	}

	// An agent creates a deck through instance a (a transaction and its
	// audit row) and lists its decks at once, through a and through b.
	writer := newReplicaUser(t, a, "writer@example.com")
	deck := contracts.Deck{ID: fmt.Sprintf("d-%d", time.Now().UnixNano()), Name: "Fresh", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := a.InTx(as(writer), func(tx ports.Stores) error { return tx.Decks().CreateDeck(ctx, writer.ID, deck) }); err != nil {
		t.Fatal(err)
	}
	if err := a.Audit().AppendAudit(as(writer), contracts.AuditEvent{ID: fmt.Sprintf("a-%d", time.Now().UnixNano()), UserID: writer.ID,
		CredentialKind: contracts.CredentialAPIKey, Tool: "create_deck", Action: "create", Outcome: contracts.AuditOK, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Routed{"the writing instance": a, "another instance": b} {
		before := r.ReplicaReads()
		decks, err := r.Decks().ListDecks(as(writer), writer.ID, "", 10, time.Now())
		if err != nil || len(decks) != 1 || decks[0].ID != deck.ID {
			t.Errorf("%s: list_decks right after create_deck = %v, %v; want the new deck", name, decks, err)
		}
		if r.ReplicaReads() != before {
			t.Errorf("%s: a principal who just wrote read from the replica", name)
		}
	}

	// The replica goes away: reads fall back to the primary and keep working.
	if err := standby.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := b.Decks().ListDecks(as(reader), reader.ID, "", 10, time.Now()); err != nil {
		t.Fatalf("a read with the replica gone: %v", err)
	}
	t.Logf("first read after the replica went away answered in %s", time.Since(start).Round(time.Millisecond))
	if time.Since(start) > 5*time.Second {
		t.Errorf("the fallback took %s", time.Since(start))
	}
	for range 3 {
		if _, err := b.Cards().CountPhases(as(reader), reader.ID, ""); err != nil {
			t.Fatalf("reads with the replica gone: %v", err)
		}
	}
	if b.reps[0].healthy.Load() {
		t.Error("the replica that went away is still marked serving")
	}

	// It comes back: after the monitor's next measurement it serves again.
	if err := standby.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !b.reps[0].healthy.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not serve again within 20 s of coming back")
		}
		time.Sleep(100 * time.Millisecond)
	}
	before = b.ReplicaReads()
	if _, err := b.Decks().ListDecks(as(reader), reader.ID, "", 10, time.Now()); err != nil || b.ReplicaReads() != before+1 {
		t.Errorf("after the replica came back: err %v, replica reads %d → %d", err, before, b.ReplicaReads())
	}

	// Reads inside a call transaction (a mutation and what it reads back)
	// run in that transaction on the primary: they see its own writes.
	inCall := contracts.Deck{ID: fmt.Sprintf("d-%d", time.Now().UnixNano()), Name: "In the call", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	err = b.InCallTx(as(reader), func(ctx context.Context) error {
		if err := b.Decks().CreateDeck(ctx, reader.ID, inCall); err != nil {
			return err
		}
		decks, err := b.Decks().ListDecks(ctx, reader.ID, "", 10, time.Now())
		if err != nil || len(decks) != 1 || decks[0].ID != inCall.ID {
			t.Errorf("list_decks inside the call transaction = %v, %v; want its new deck", decks, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newReplicaUser creates a user on the primary.
func newReplicaUser(t *testing.T, r *Routed, email string) contracts.User {
	t.Helper()
	u := contracts.User{ID: fmt.Sprintf("u-%d", time.Now().UnixNano()), Email: email, Name: strings.Split(email, "@")[0], CreatedAt: time.Now()}
	if err := r.Users().CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

// waitReplayed waits until the replica has replayed everything written so far.
func waitReplayed(t *testing.T, r *Routed) {
	t.Helper()
	ok, _ := r.lagOf(context.Background(), r.reps[0])
	if !ok {
		t.Fatal("the replica did not catch up")
	}
}
