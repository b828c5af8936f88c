-- Each account's data version (issue 12 §3): a number that every committed
-- write of the account's cards, decks, presets, review logs or settings
-- changes, bumped by triggers in the writing transaction, so a cache of
-- something computed from them (the study plan's forecast, the stats) can
-- tell on any instance, with one indexed read, whether it is still current.
-- No foreign key: rows are written by triggers that also fire while an
-- account's rows are deleted with it; they skip an account whose user row
-- is gone, and deleting the account deletes its row.

-- +goose Up
CREATE TABLE account_versions (
    user_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL
);

-- +goose StatementBegin
CREATE TRIGGER cards_version_insert AFTER INSERT ON cards
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_version_update AFTER UPDATE ON cards
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_version_delete AFTER DELETE ON cards
WHEN EXISTS (SELECT 1 FROM users WHERE id = old.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER decks_version_insert AFTER INSERT ON decks
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER decks_version_update AFTER UPDATE ON decks
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER decks_version_delete AFTER DELETE ON decks
WHEN EXISTS (SELECT 1 FROM users WHERE id = old.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER presets_version_insert AFTER INSERT ON presets
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER presets_version_update AFTER UPDATE ON presets
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER presets_version_delete AFTER DELETE ON presets
WHEN EXISTS (SELECT 1 FROM users WHERE id = old.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER review_logs_version_insert AFTER INSERT ON review_logs
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER review_logs_version_update AFTER UPDATE ON review_logs
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER review_logs_version_delete AFTER DELETE ON review_logs
WHEN EXISTS (SELECT 1 FROM users WHERE id = old.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_settings_version_insert AFTER INSERT ON account_settings
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_settings_version_update AFTER UPDATE ON account_settings
WHEN EXISTS (SELECT 1 FROM users WHERE id = new.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_settings_version_delete AFTER DELETE ON account_settings
WHEN EXISTS (SELECT 1 FROM users WHERE id = old.user_id) BEGIN
    INSERT INTO account_versions (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER cards_version_insert;
DROP TRIGGER cards_version_update;
DROP TRIGGER cards_version_delete;
DROP TRIGGER decks_version_insert;
DROP TRIGGER decks_version_update;
DROP TRIGGER decks_version_delete;
DROP TRIGGER presets_version_insert;
DROP TRIGGER presets_version_update;
DROP TRIGGER presets_version_delete;
DROP TRIGGER review_logs_version_insert;
DROP TRIGGER review_logs_version_update;
DROP TRIGGER review_logs_version_delete;
DROP TRIGGER account_settings_version_insert;
DROP TRIGGER account_settings_version_update;
DROP TRIGGER account_settings_version_delete;
DROP TABLE account_versions;
