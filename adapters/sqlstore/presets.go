package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// presetStore is the preset view of a handle.
type presetStore struct{ *handle }

// Presets returns the preset store on h.
func (h *handle) Presets() ports.PresetStore { return presetStore{h} }

// Presets returns the preset store outside any transaction.
func (s *Store) Presets() ports.PresetStore { return s.root.Presets() }

// presetCols reads a preset with the number of decks using it.
const presetCols = `p.id, p.name, p.settings, p.created_at, p.updated_at,
  (SELECT COUNT(*) FROM decks d WHERE d.preset_id = p.id)`

// CreatePreset inserts a preset. Conflict when the id is taken; not found
// when the user does not exist.
func (s presetStore) CreatePreset(ctx context.Context, userID string, p contracts.Preset) error {
	settings, err := jsonText(p.Settings)
	if err != nil {
		return contracts.Internal(err)
	}
	_, err = s.exec(ctx, `INSERT INTO presets (id, user_id, name, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		p.ID, userID, p.Name, settings, ms(p.CreatedAt), ms(p.UpdatedAt))
	return s.fail(ctx, err, "create preset", failMsgs{unique: "preset id taken", fk: "user not found"})
}

// GetPreset returns a preset with its deck count. Not found when absent or
// another user's.
func (s presetStore) GetPreset(ctx context.Context, userID, presetID string) (contracts.Preset, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+presetCols+` FROM presets p WHERE p.user_id = $1 AND p.id = $2`, userID, presetID)
	if err != nil {
		return contracts.Preset{}, s.s.wrap(ctx, err, "get preset")
	}
	ps, err := s.scan(ctx, rows)
	if err != nil {
		return contracts.Preset{}, err
	}
	if len(ps) == 0 {
		return contracts.Preset{}, notFound("preset")
	}
	return ps[0], nil
}

// ListPresets returns the user's presets ordered by name, then id.
func (s presetStore) ListPresets(ctx context.Context, userID string) ([]contracts.Preset, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+presetCols+` FROM presets p WHERE p.user_id = $1 ORDER BY p.name, p.id`, userID)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list presets")
	}
	return s.scan(ctx, rows)
}

func (s presetStore) scan(ctx context.Context, rows *sql.Rows) ([]contracts.Preset, error) {
	out := []contracts.Preset{}
	err := func() error {
		defer rows.Close()
		for rows.Next() {
			var p contracts.Preset
			var settings string
			var created, updated int64
			if err := rows.Scan(&p.ID, &p.Name, &settings, &created, &updated, &p.Decks); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(settings), &p.Settings); err != nil {
				return err
			}
			p.CreatedAt, p.UpdatedAt = fromMs(created), fromMs(updated)
			out = append(out, p)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, s.s.wrap(ctx, err, "read presets")
	}
	return out, nil
}

// UpdatePreset stores a preset's name, settings and UpdatedAt. Not found
// when absent or another user's.
func (s presetStore) UpdatePreset(ctx context.Context, userID string, p contracts.Preset) error {
	settings, err := jsonText(p.Settings)
	if err != nil {
		return contracts.Internal(err)
	}
	res, err := s.exec(ctx, `UPDATE presets SET name = $3, settings = $4, updated_at = $5 WHERE user_id = $1 AND id = $2`,
		userID, p.ID, p.Name, settings, ms(p.UpdatedAt))
	n, err := s.affected(ctx, res, err, "update preset")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("preset")
	}
	return nil
}

// DeleteUnusedPreset deletes a preset of the user that no deck uses.
func (s presetStore) DeleteUnusedPreset(ctx context.Context, userID, presetID string) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM presets WHERE user_id = $1 AND id = $2
AND NOT EXISTS (SELECT 1 FROM decks d WHERE d.preset_id = presets.id)`, userID, presetID)
	n, err := s.affected(ctx, res, err, "delete preset")
	return n > 0, err
}
