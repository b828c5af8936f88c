-- The person confirms big and destructive calls (issue 26 §3). An
-- account's thresholds are a JSON object on its exposure settings ('':
-- never chose, the defaults); an API key or OAuth grant marked trusted
-- skips confirmation. A confirmation is stored by the SHA-256 of its id,
-- like sign-in links: bound to its user, tool and a hash of the call's
-- arguments, with the preview the person sees; one use, 10 minutes (the
-- purge deletes expired ones).

-- +goose Up
ALTER TABLE exposure_settings ADD COLUMN confirm TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN trusted BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE oauth_grants ADD COLUMN trusted BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE confirmations (
    hash       BYTEA PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tool       TEXT NOT NULL,
    args_hash  BYTEA NOT NULL,
    preview    TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX confirmations_expiry ON confirmations (expires_at);

-- +goose Down
DROP TABLE confirmations;
ALTER TABLE oauth_grants DROP COLUMN trusted;
ALTER TABLE api_keys DROP COLUMN trusted;
ALTER TABLE exposure_settings DROP COLUMN confirm;
