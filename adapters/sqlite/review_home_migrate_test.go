package sqlite

import (
	"context"
	"testing"
)

// TestReviewHomeMigration checks that migration 00038 puts the reviews an
// edit in a filtered deck moved there back under their card's home (the
// home the card keeps while the filtered deck holds it, or its deck once
// back home), and leaves every other review where it is.
func TestReviewHomeMigration(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, 37)
	card := func(id, deck, home string) string {
		return `INSERT INTO cards (id, user_id, deck_id, home_deck_id, front, back, phase, due, hash, version, created_at, updated_at)
		 VALUES ('` + id + `', 'u1', '` + deck + `', ` + home + `, '` + id + `', 'b', 'review', 0, '` + id + `', 1, 0, 0)`
	}
	review := func(id, cardID, deck string) string {
		return `INSERT INTO review_logs (id, user_id, card_id, deck_id, rating, prev_phase, phase, due, stability, difficulty, scheduled_days, reps, lapses, step, reviewed_at)
		 VALUES ('` + id + `', 'u1', '` + cardID + `', '` + deck + `', 'good', 'review', 'review', 0, 1, 5, 1, 1, 0, 0, 0)`
	}
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at) VALUES ('u1', 'u1@example.com', 0)`,
		`INSERT INTO decks (id, user_id, name, settings, created_at, updated_at) VALUES ('home', 'u1', 'Home', '{}', 0, 0)`,
		`INSERT INTO decks (id, user_id, name, settings, created_at, updated_at) VALUES ('other', 'u1', 'Other', '{}', 0, 0)`,
		`INSERT INTO decks (id, user_id, name, settings, created_at, updated_at) VALUES ('fd', 'u1', 'Filtered', '{}', 0, 0)`,
		`INSERT INTO filtered_decks (deck_id, user_id, search, card_limit, card_order, reschedule, built_at) VALUES ('fd', 'u1', '', 10, 'due', TRUE, 0)`,
		card("held", "fd", "'home'"),  // a filtered deck holds it
		card("back", "other", "NULL"), // back at home
		card("plain", "home", "NULL"),
		review("r1", "held", "fd"),
		review("r2", "back", "fd"),
		review("r3", "plain", "home"),
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"r1": "home", "r2": "other", "r3": "home"} {
		var got string
		if err := s.DB().QueryRowContext(ctx, `SELECT deck_id FROM review_logs WHERE id = ?`, id).Scan(&got); err != nil || got != want {
			t.Errorf("review %s after the migration: deck %q, %v; want %q", id, got, err, want)
		}
	}
}
