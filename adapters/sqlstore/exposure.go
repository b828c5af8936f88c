package sqlstore

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
)

// GetExposure returns a user's settings, the zero value when never set.
func (s exposureStore) GetExposure(ctx context.Context, userID string) (contracts.ExposureSettings, error) {
	var tools, sets string
	var readOnly bool
	var updated int64
	err := s.q.QueryRowContext(ctx, `SELECT read_only, disabled_tools, toolsets, updated_at FROM exposure_settings WHERE user_id = $1`, userID).
		Scan(&readOnly, &tools, &sets, &updated)
	if errNoRows(err) {
		return contracts.ExposureSettings{}, nil
	}
	if err != nil {
		return contracts.ExposureSettings{}, s.s.wrap(ctx, err, "get exposure")
	}
	e, err := exposureRow(readOnly, tools, sets, updated)
	if err != nil {
		return contracts.ExposureSettings{}, s.s.wrap(ctx, err, "get exposure")
	}
	return e, nil
}

// exposureRow decodes a row of exposure_settings. Toolsets '[]' (never
// chosen) is nil; updated_at 0 (a row the toolsets migration added for an
// account that existed, keeping every tool) is the zero time.
func exposureRow(readOnly bool, tools, sets string, updated int64) (contracts.ExposureSettings, error) {
	e := contracts.ExposureSettings{ReadOnly: readOnly}
	var err error
	if e.DisabledTools, err = parseStrings(tools); err != nil {
		return e, err
	}
	if e.Toolsets, err = parseStrings(sets); err != nil {
		return e, err
	}
	if len(e.Toolsets) == 0 {
		e.Toolsets = nil
	}
	if updated != 0 {
		e.UpdatedAt = fromMs(updated)
	}
	return e, nil
}

// PutExposure replaces a user's settings. Not found when the user does not exist.
func (s exposureStore) PutExposure(ctx context.Context, userID string, e contracts.ExposureSettings) error {
	var updated int64
	if !e.UpdatedAt.IsZero() {
		updated = ms(e.UpdatedAt)
	}
	_, err := s.exec(ctx, `INSERT INTO exposure_settings (user_id, read_only, disabled_tools, toolsets, updated_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (user_id) DO UPDATE SET read_only = excluded.read_only, disabled_tools = excluded.disabled_tools, toolsets = excluded.toolsets, updated_at = excluded.updated_at`,
		userID, e.ReadOnly, stringsJSON(e.DisabledTools), stringsJSON(e.Toolsets), updated)
	return s.fail(ctx, err, "put exposure", failMsgs{fk: "user not found"})
}
