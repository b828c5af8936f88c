package sqlstore

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
)

// GetExposure returns a user's settings, the zero value when never set.
func (s exposureStore) GetExposure(ctx context.Context, userID string) (contracts.ExposureSettings, error) {
	var e contracts.ExposureSettings
	var tools string
	var updated int64
	err := s.q.QueryRowContext(ctx, `SELECT read_only, disabled_tools, updated_at FROM exposure_settings WHERE user_id = $1`, userID).
		Scan(&e.ReadOnly, &tools, &updated)
	if errNoRows(err) {
		return contracts.ExposureSettings{}, nil
	}
	if err == nil {
		e.DisabledTools, err = parseStrings(tools)
	}
	if err != nil {
		return contracts.ExposureSettings{}, s.s.wrap(ctx, err, "get exposure")
	}
	e.UpdatedAt = fromMs(updated)
	return e, nil
}

// PutExposure replaces a user's settings. Not found when the user does not exist.
func (s exposureStore) PutExposure(ctx context.Context, userID string, e contracts.ExposureSettings) error {
	_, err := s.exec(ctx, `INSERT INTO exposure_settings (user_id, read_only, disabled_tools, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (user_id) DO UPDATE SET read_only = excluded.read_only, disabled_tools = excluded.disabled_tools, updated_at = excluded.updated_at`,
		userID, e.ReadOnly, stringsJSON(e.DisabledTools), ms(e.UpdatedAt))
	return s.fail(ctx, err, "put exposure", failMsgs{fk: "user not found"})
}
