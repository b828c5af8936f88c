package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path, WithoutMigrate())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.migrate(ctx)
	if err != nil || n == 0 {
		t.Fatalf("first migration applied %d, %v; want every migration", n, err)
	}
	n, err = s.migrate(ctx)
	if err != nil || n != 0 {
		t.Fatalf("second migration applied %d, %v; want a no-op", n, err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Reopening (which migrates) keeps the data.
	must(t, s.Users().CreateUser(ctx, contracts.User{ID: "u1", Email: "u1@example.com", CreatedAt: time.Now()}))
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Users().UserByID(ctx, "u1"); err != nil {
		t.Fatalf("user lost across reopen: %v", err)
	}
}

func TestMemory(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Users().CreateUser(ctx, contracts.User{ID: "u1", Email: "u1@example.com", CreatedAt: time.Now()}))
	// Every pooled connection sees the same database.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Users().UserByID(ctx, "u1"); err != nil {
				t.Errorf("UserByID on another connection: %v", err)
			}
		}()
	}
	wg.Wait()
	var file string
	if err := s.DB().QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(file)); !os.IsNotExist(err) {
		t.Errorf("Close left the memory database's directory %s behind (%v)", filepath.Dir(file), err)
	}
}

// TestTwoStoresOneFile runs writers through two stores (as two processes
// would) on one file: SQLite's busy_timeout must queue them, never fail.
func TestTwoStoresOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	s1 := openPath(t, path)
	s2 := openPath(t, path)
	must(t, s1.Users().CreateUser(ctx, contracts.User{ID: "u1", Email: "u1@example.com", CreatedAt: time.Now()}))
	var wg sync.WaitGroup
	for w := range 8 {
		s := []*Store{s1, s2}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				err := s.InTx(ctx, func(tx ports.Stores) error {
					return tx.Decks().CreateDeck(ctx, "u1", contracts.Deck{ID: "d" + itoa(w) + "-" + itoa(i), Name: "deck " + itoa(w) + "-" + itoa(i),
						Settings: contracts.DefaultDeckSettings(), CreatedAt: time.Now(), UpdatedAt: time.Now()})
				})
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	decks, err := s2.Decks().ListDecks(ctx, "u1", "", 1000, time.Now())
	must(t, err)
	if len(decks) != 160 {
		t.Errorf("%d decks, want 160", len(decks))
	}
}

// TestSearchIndexIntegrity checks the FTS5 index stays consistent with the
// cards through inserts, edits, deletions and deck cascades.
func TestSearchIndexIntegrity(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	now := time.Now()
	must(t, s.Users().CreateUser(ctx, contracts.User{ID: "u1", Email: "u1@example.com", CreatedAt: now}))
	for _, d := range []string{"d1", "d2"} {
		must(t, s.Decks().CreateDeck(ctx, "u1", contracts.Deck{ID: d, Name: d, Settings: contracts.DefaultDeckSettings(), CreatedAt: now, UpdatedAt: now}))
	}
	var cards []ports.CardRow
	for i := range 50 {
		deck := []string{"d1", "d2"}[i%2]
		cards = append(cards, ports.CardRow{Card: contracts.Card{ID: "c" + itoa(i), DeckID: deck, Front: "front " + itoa(i), Back: "back",
			Tags: []string{"t" + itoa(i%3)}, State: contracts.CardState{Phase: contracts.PhaseNew, Due: now}, CreatedAt: now, UpdatedAt: now}, Hash: "h" + itoa(i)})
	}
	must(t, s.Cards().InsertCards(ctx, "u1", cards))
	c := cards[0]
	c.Version, c.Front = 1, "changed"
	must(t, s.Cards().UpdateCard(ctx, "u1", c))
	_, err := s.Cards().TrashCards(ctx, "u1", []string{"c2", "c4"}, now)
	must(t, err)
	_, err = s.Decks().TrashDeck(ctx, "u1", "d2", now)
	must(t, err)
	if _, err := s.DB().Exec("INSERT INTO cards_fts (cards_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Fatalf("FTS5 index out of step with the cards: %v", err)
	}
	var n int
	if err := s.DB().QueryRow("SELECT COUNT(*) FROM cards_fts WHERE cards_fts MATCH 'back'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 23 {
		t.Errorf("the index matches %d cards, want 23", n)
	}
}

func openPath(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
