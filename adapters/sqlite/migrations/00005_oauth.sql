-- OAuth 2.1 authorization server: registered clients, one-time codes,
-- grants (one per consent) and the tokens issued under them. Codes and
-- tokens are stored as SHA-256 hashes; a grant's revocation stops every
-- token issued under it.

-- +goose Up
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    uri           TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX oauth_clients_created ON oauth_clients (created_at);

CREATE TABLE oauth_codes (
    hash         BLOB PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id    TEXT NOT NULL,
    client_name  TEXT NOT NULL,
    client_kind  TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    challenge    TEXT NOT NULL,
    resource     TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      INTEGER,
    grant_id     TEXT
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE oauth_grants (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id    TEXT NOT NULL,
    client_name  TEXT NOT NULL,
    client_kind  TEXT NOT NULL,
    resource     TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at);

CREATE TABLE oauth_tokens (
    hash       BLOB PRIMARY KEY,
    kind       TEXT NOT NULL,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    scopes     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER,
    revoked_at INTEGER
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_grants;
DROP TABLE oauth_codes;
DROP TABLE oauth_clients;
