-- An account's default toolsets (issue 25 §1.2): the sets an agent gets
-- when its URL and headers choose none. '[]' means the account never
-- chose: the lean default (study and library). Accounts that exist when
-- this runs keep every tool until their owner chooses: they get '["all"]',
-- a row added where they had none (updated_at 0: never changed by them).

-- +goose Up
ALTER TABLE exposure_settings ADD COLUMN toolsets TEXT NOT NULL DEFAULT '[]';
UPDATE exposure_settings SET toolsets = '["all"]';
INSERT INTO exposure_settings (user_id, read_only, disabled_tools, toolsets, updated_at)
SELECT id, FALSE, '[]', '["all"]', 0 FROM users
WHERE NOT EXISTS (SELECT 1 FROM exposure_settings x WHERE x.user_id = users.id);

-- +goose Down
DELETE FROM exposure_settings WHERE updated_at = 0 AND NOT read_only AND disabled_tools = '[]';
ALTER TABLE exposure_settings DROP COLUMN toolsets;
