package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
)

// GetExposure returns a user's settings, the zero value when never set.
func (s exposureStore) GetExposure(ctx context.Context, userID string) (contracts.ExposureSettings, error) {
	var tools, sets, confirm string
	var readOnly bool
	var updated int64
	err := s.q.QueryRowContext(ctx, `SELECT read_only, disabled_tools, toolsets, confirm, updated_at FROM exposure_settings WHERE user_id = $1`, userID).
		Scan(&readOnly, &tools, &sets, &confirm, &updated)
	if errNoRows(err) {
		return contracts.ExposureSettings{}, nil
	}
	if err != nil {
		return contracts.ExposureSettings{}, s.s.wrap(ctx, err, "get exposure")
	}
	e, err := exposureRow(readOnly, tools, sets, confirm, updated)
	if err != nil {
		return contracts.ExposureSettings{}, s.s.wrap(ctx, err, "get exposure")
	}
	return e, nil
}

// exposureRow decodes a row of exposure_settings. Toolsets '[]' (never
// chosen) is nil, and so is confirm ” (the default thresholds); updated_at 0 (a row the toolsets migration added for an
// account that existed, keeping every tool) is the zero time.
func exposureRow(readOnly bool, tools, sets, confirm string, updated int64) (contracts.ExposureSettings, error) {
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
	if confirm != "" {
		e.Confirm = new(contracts.ConfirmThresholds)
		if err = json.Unmarshal([]byte(confirm), e.Confirm); err != nil {
			return e, err
		}
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
	confirm := ""
	if e.Confirm != nil {
		b, err := json.Marshal(e.Confirm)
		if err != nil {
			return contracts.Internal(err)
		}
		confirm = string(b)
	}
	_, err := s.exec(ctx, `INSERT INTO exposure_settings (user_id, read_only, disabled_tools, toolsets, confirm, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (user_id) DO UPDATE SET read_only = excluded.read_only, disabled_tools = excluded.disabled_tools, toolsets = excluded.toolsets,
confirm = excluded.confirm, updated_at = excluded.updated_at`,
		userID, e.ReadOnly, stringsJSON(e.DisabledTools), stringsJSON(e.Toolsets), confirm, updated)
	return s.fail(ctx, err, "put exposure", failMsgs{fk: "user not found"})
}
