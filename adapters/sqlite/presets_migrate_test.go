package sqlite

import (
	"context"
	"slices"
	"testing"
)

// TestPresetsMigration checks that migration 00011 gives every existing
// deck a preset holding its own steps, retention, maximum interval and
// weights.
func TestPresetsMigration(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, 10)
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at) VALUES ('u1', 'u1@example.com', 0)`,
		`INSERT INTO decks (id, user_id, name, settings, created_at, updated_at) VALUES ('d1', 'u1', 'Kanji',
		 '{"desiredRetention":0.83,"newCardsPerDay":4,"reviewsPerDay":50,"maximumIntervalDays":300,"learningSteps":[3,30],"reviewOrder":"random"}', 0, 0)`,
		`INSERT INTO decks (id, user_id, name, settings, created_at, updated_at) VALUES ('d2', 'u1', 'Kana',
		 '{"desiredRetention":0.9,"newCardsPerDay":20,"reviewsPerDay":200,"maximumIntervalDays":36500}', 0, 0)`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.migrate(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decks().DeckWithoutCounts(ctx, "u1", "d1")
	if err != nil {
		t.Fatal(err)
	}
	set := d.Settings
	if set.PresetID != "pd1" || set.DesiredRetention != 0.83 || set.MaximumIntervalDays != 300 || !slices.Equal(set.LearningSteps, []float64{3, 30}) ||
		set.NewCardsPerDay != 4 || set.ReviewsPerDay != 50 || set.ReviewOrder != "random" {
		t.Errorf("migrated deck settings = %+v", set)
	}
	ps, err := s.Presets().ListPresets(ctx, "u1")
	if err != nil || len(ps) != 2 || ps[0].Name != "Kana" || ps[1].Name != "Kanji" || ps[1].Decks != 1 || ps[1].Settings.DesiredRetention != 0.83 {
		t.Errorf("presets after the migration = %+v, %v; want one per deck", ps, err)
	}
}
