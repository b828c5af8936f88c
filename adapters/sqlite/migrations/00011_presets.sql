-- Presets: scheduling settings (learning and relearning steps, maximum
-- interval, desired retention, FSRS weights) shared by the decks that use
-- them. settings is JSON (contracts.PresetSettings). decks.preset_id names
-- a deck's preset; NULL means none yet (its own settings hold the fields).
-- Every existing deck gets a preset of its own, named after it, holding
-- its current values ('p' followed by the deck id).

-- +goose Up
CREATE TABLE presets (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX presets_by_user ON presets (user_id, name);
ALTER TABLE decks ADD COLUMN preset_id TEXT REFERENCES presets (id) ON DELETE SET NULL;
CREATE INDEX decks_by_preset ON decks (preset_id);
INSERT INTO presets (id, user_id, name, settings, created_at, updated_at)
SELECT 'p' || id, user_id, name, settings, created_at, updated_at FROM decks;
UPDATE decks SET preset_id = 'p' || id;

-- +goose Down
-- SQLite cannot drop a column used in a foreign key: the column stays, unused.
DROP INDEX decks_by_preset;
UPDATE decks SET preset_id = NULL;
DROP TABLE presets;
