package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestReviewReadsSkipOtherImports: while one account's import has its
// review logs staged (50,000 here, analyzed), another account's (20,000
// cards, 100,000 logs) reads of its review logs, submit_review's
// daily-limit count first (in the review's transaction, holding the one
// writer), must not scan them: the plan reaches staged logs through the
// account's own published stages.
func TestReviewReadsSkipOtherImports(t *testing.T) {
	ctx := context.Background()
	var counter sqlcount.Counter
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "plan.db"), sqlite.WithCounter(&counter))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)
	deck := map[string]string{}
	for _, u := range []string{"importer", "reviewer"} {
		if err := s.Users().CreateUser(ctx, contracts.User{ID: u, Email: u + "@example.com", CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		deck[u] = "deck-" + u
		if err := s.Decks().CreateDeck(ctx, u, contracts.Deck{ID: deck[u], Name: u, Settings: contracts.DefaultDeckSettings(), CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ImportStages().CreateStage(ctx, ports.ImportStage{ID: "stage", UserID: "importer"}, now); err != nil {
		t.Fatal(err)
	}
	// The reviewer has a published stage of its own (an empty one), so
	// its reads do go through the staged logs.
	if err := s.ImportStages().CreateStage(ctx, ports.ImportStage{ID: "own", UserID: "reviewer"}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportStages().PublishStage(ctx, "reviewer", "own", now); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
INSERT INTO import_review_logs (stage_id, id, user_id, card_id, deck_id, rating, prev_phase, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, reviewed_at, duration_ms, day, kind)
SELECT 'stage', 'rev-' || i, 'importer', 'card-' || (i % 5000), 'deck-importer', 'good', 'review', 'review', 0, 3, 5, 3, 1, 0, 0,
$1 - i * 1000, 4000, 20000, 'review' FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO cards (id, user_id, deck_id, front, back, phase, due, hash, version, created_at, updated_at)
SELECT 'card-r' || i, 'reviewer', 'deck-reviewer', 'front ' || i, 'back', 'review', $1, 'hash ' || i, 1, 0, 0 FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO review_logs (id, user_id, card_id, deck_id, rating, prev_phase, phase, due, stability, difficulty, scheduled_days,
reps, lapses, step, reviewed_at, duration_ms, day, kind)
SELECT 'rev-r' || i, 'reviewer', 'card-r' || (1 + i % 20000), 'deck-reviewer', 'good', 'review', 'review', 0, 3, 5, 3, 1, 0, 0,
$1 - i * 60000, 4000, 20000, 'review' FROM n`,
	} {
		if _, err := s.DB().ExecContext(ctx, q, now.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	since := now.Add(-24 * time.Hour)
	for _, read := range []struct {
		name string
		args []any
		run  func() error
	}{
		{"StudiedSince of a deck", []any{"reviewer", deck["reviewer"], since.UnixMilli()}, func() error {
			_, err := s.Reviews().StudiedSince(ctx, "reviewer", deck["reviewer"], since)
			return err
		}},
		{"ReviewDays", []any{"reviewer", since.UnixMilli()}, func() error {
			_, err := s.Reviews().ReviewDays(ctx, "reviewer", "", since)
			return err
		}},
	} {
		var mu sync.Mutex
		var queries []string
		counter.Trace(func(q string) {
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(q, "import_review_logs") {
				queries = append(queries, q)
			}
		})
		err := read.run()
		counter.Trace(nil)
		if err != nil {
			t.Fatalf("%s: %v", read.name, err)
		}
		if len(queries) != 1 {
			t.Fatalf("%s ran %d statements reading import_review_logs, want 1: %q", read.name, len(queries), queries)
		}
		plan := queryPlan(ctx, t, s.DB(), queries[0], read.args...)
		for _, step := range plan {
			if f := strings.Fields(step); len(f) >= 2 && f[0] == "SCAN" && f[1] == "s" {
				t.Errorf("%s scans every staged review log of every import: %s", read.name, strings.Join(plan, "; "))
			}
		}
	}
}
