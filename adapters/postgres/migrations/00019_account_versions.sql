-- Each account's data version (issue 12 §3): a number that every committed
-- write of the account's cards, decks, presets, review logs or settings
-- changes, bumped by triggers in the writing transaction, so a cache of
-- something computed from them (the study plan's forecast, the stats) can
-- tell on any instance, with one indexed read, whether it is still current.
-- No foreign key: rows are written by triggers that also fire while an
-- account's rows are deleted with it; they skip an account whose user row
-- is gone, and deleting the account deletes its row.
-- The trigger is a deferred constraint trigger: it runs at commit, after
-- every other lock the transaction takes, so waiting for an account's
-- version row can never be part of a deadlock; it bumps once per
-- transaction (xact), however many rows the transaction wrote.

-- +goose Up
CREATE TABLE account_versions (
    user_id TEXT COLLATE "C" PRIMARY KEY,
    version BIGINT NOT NULL,
    xact    BIGINT NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION account_version_bump() RETURNS trigger AS $$
DECLARE
    uid TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        uid := OLD.user_id;
    ELSE
        uid := NEW.user_id;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM users WHERE id = uid) THEN
        RETURN NULL; -- the account is being deleted
    END IF;
    INSERT INTO account_versions AS v (user_id, version, xact) VALUES (uid, 1, txid_current())
    ON CONFLICT (user_id) DO UPDATE SET version = v.version + 1, xact = EXCLUDED.xact
    WHERE v.xact <> EXCLUDED.xact;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER cards_version AFTER INSERT OR UPDATE OR DELETE ON cards
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION account_version_bump();

CREATE CONSTRAINT TRIGGER decks_version AFTER INSERT OR UPDATE OR DELETE ON decks
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION account_version_bump();

CREATE CONSTRAINT TRIGGER presets_version AFTER INSERT OR UPDATE OR DELETE ON presets
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION account_version_bump();

CREATE CONSTRAINT TRIGGER review_logs_version AFTER INSERT OR UPDATE OR DELETE ON review_logs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION account_version_bump();

CREATE CONSTRAINT TRIGGER account_settings_version AFTER INSERT OR UPDATE OR DELETE ON account_settings
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION account_version_bump();

-- +goose Down
DROP TRIGGER cards_version ON cards;
DROP TRIGGER decks_version ON decks;
DROP TRIGGER presets_version ON presets;
DROP TRIGGER review_logs_version ON review_logs;
DROP TRIGGER account_settings_version ON account_settings;
DROP FUNCTION account_version_bump();
DROP TABLE account_versions;
