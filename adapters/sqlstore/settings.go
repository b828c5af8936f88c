package sqlstore

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// settingsStore is the settings view of a handle.
type settingsStore struct{ *handle }

// Settings returns the settings store on h.
func (h *handle) Settings() ports.SettingsStore { return settingsStore{h} }

// Settings returns the settings store outside any transaction.
func (s *Store) Settings() ports.SettingsStore { return s.root.Settings() }

// GetSettings returns a user's stored settings and whether any were stored.
func (s settingsStore) GetSettings(ctx context.Context, userID string) (contracts.AccountSettings, bool, error) {
	var a contracts.AccountSettings
	var updated int64
	err := s.q.QueryRowContext(ctx, `SELECT timezone, rollover_hour, learn_ahead_minutes, new_per_day, reviews_per_day, updated_at
FROM account_settings WHERE user_id = $1`, userID).
		Scan(&a.Timezone, &a.RolloverHour, &a.LearnAheadMinutes, &a.NewCardsPerDay, &a.ReviewsPerDay, &updated)
	if errNoRows(err) {
		return contracts.AccountSettings{}, false, nil
	}
	if err != nil {
		return contracts.AccountSettings{}, false, s.s.wrap(ctx, err, "get settings")
	}
	a.UpdatedAt = fromMs(updated)
	return a, true, nil
}

// PutSettings replaces a user's settings. Not found when the user does not exist.
func (s settingsStore) PutSettings(ctx context.Context, userID string, a contracts.AccountSettings) error {
	_, err := s.exec(ctx, `INSERT INTO account_settings (user_id, timezone, rollover_hour, learn_ahead_minutes, new_per_day, reviews_per_day, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone, rollover_hour = excluded.rollover_hour,
learn_ahead_minutes = excluded.learn_ahead_minutes, new_per_day = excluded.new_per_day,
reviews_per_day = excluded.reviews_per_day, updated_at = excluded.updated_at`,
		userID, a.Timezone, a.RolloverHour, a.LearnAheadMinutes, a.NewCardsPerDay, a.ReviewsPerDay, ms(a.UpdatedAt))
	return s.fail(ctx, err, "put settings", failMsgs{fk: "user not found"})
}

// LockDailyCaps takes the settings row's lock (a no-op write) for the rest
// of the transaction; in SQLite writers are serialised anyway.
func (s settingsStore) LockDailyCaps(ctx context.Context, userID string) error {
	res, err := s.exec(ctx, `UPDATE account_settings SET updated_at = updated_at WHERE user_id = $1`, userID)
	_, err = s.affected(ctx, res, err, "lock daily caps")
	return err
}

// DataVersion implements ports.SettingsStore (the triggers of migration
// 00019 keep account_versions).
func (s settingsStore) DataVersion(ctx context.Context, userID string) (int64, error) {
	var v int64
	err := s.q.QueryRowContext(ctx, `SELECT version FROM account_versions WHERE user_id = $1`, userID).Scan(&v)
	if errNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, s.s.wrap(ctx, err, "data version")
	}
	return v, nil
}
