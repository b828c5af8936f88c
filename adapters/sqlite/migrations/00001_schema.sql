-- Takhtabush schema, SQLite dialect. Times are unix milliseconds UTC,
-- ids TEXT, tags and other lists TEXT holding JSON. Keep the SQL of the
-- partial indexes' WHERE clauses in step with sqlstore (queued).

-- +goose Up
CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);

CREATE TABLE decks (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    settings    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (user_id, name),
    UNIQUE (user_id, id)
);

-- seq is a stable integer key for the FTS5 external-content index.
CREATE TABLE cards (
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    user_id        TEXT NOT NULL,
    deck_id        TEXT NOT NULL,
    front          TEXT NOT NULL,
    back           TEXT NOT NULL,
    tags           TEXT NOT NULL DEFAULT '[]',
    suspended      BOOLEAN NOT NULL DEFAULT FALSE,
    phase          TEXT NOT NULL,
    due            INTEGER NOT NULL,
    stability      REAL NOT NULL DEFAULT 0,
    difficulty     REAL NOT NULL DEFAULT 0,
    scheduled_days INTEGER NOT NULL DEFAULT 0,
    reps           INTEGER NOT NULL DEFAULT 0,
    lapses         INTEGER NOT NULL DEFAULT 0,
    step           INTEGER NOT NULL DEFAULT 0,
    last_review    INTEGER,
    hash           TEXT NOT NULL,
    version        INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (deck_id, hash),
    UNIQUE (user_id, id),
    FOREIGN KEY (user_id, deck_id) REFERENCES decks (user_id, id) ON DELETE CASCADE
);
-- deck counts, phase counts, due counts and the due histogram
CREATE INDEX cards_deck_state ON cards (user_id, deck_id, suspended, phase, due);
-- the due queue, most overdue first
CREATE INDEX cards_due ON cards (user_id, deck_id, due, id) WHERE suspended = FALSE AND phase <> 'new';
-- new cards, oldest first
CREATE INDEX cards_new ON cards (user_id, deck_id, created_at, id) WHERE suspended = FALSE AND phase = 'new';
-- keyset pages of a deck
CREATE INDEX cards_deck_id ON cards (user_id, deck_id, id);

CREATE VIRTUAL TABLE cards_fts USING fts5 (
    front, back, tags,
    content = 'cards', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER cards_fts_insert AFTER INSERT ON cards BEGIN
    INSERT INTO cards_fts (rowid, front, back, tags) VALUES (new.seq, new.front, new.back, new.tags);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_fts_delete AFTER DELETE ON cards BEGIN
    INSERT INTO cards_fts (cards_fts, rowid, front, back, tags) VALUES ('delete', old.seq, old.front, old.back, old.tags);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_fts_update AFTER UPDATE OF front, back, tags ON cards
WHEN old.front IS NOT new.front OR old.back IS NOT new.back OR old.tags IS NOT new.tags
BEGIN
    INSERT INTO cards_fts (cards_fts, rowid, front, back, tags) VALUES ('delete', old.seq, old.front, old.back, old.tags);
    INSERT INTO cards_fts (rowid, front, back, tags) VALUES (new.seq, new.front, new.back, new.tags);
END;
-- +goose StatementEnd

CREATE TABLE review_logs (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    card_id        TEXT NOT NULL,
    deck_id        TEXT NOT NULL,
    session_id     TEXT,
    rating         TEXT NOT NULL,
    prev_phase     TEXT NOT NULL,
    phase          TEXT NOT NULL,
    due            INTEGER NOT NULL,
    stability      REAL NOT NULL,
    difficulty     REAL NOT NULL,
    scheduled_days INTEGER NOT NULL,
    reps           INTEGER NOT NULL,
    lapses         INTEGER NOT NULL,
    step           INTEGER NOT NULL,
    last_review    INTEGER,
    reviewed_at    INTEGER NOT NULL,
    duration_ms    INTEGER,
    FOREIGN KEY (user_id, card_id) REFERENCES cards (user_id, id) ON DELETE CASCADE
);
CREATE INDEX review_logs_user_time ON review_logs (user_id, reviewed_at);
CREATE INDEX review_logs_deck_time ON review_logs (user_id, deck_id, reviewed_at);
CREATE INDEX review_logs_card ON review_logs (user_id, card_id);

CREATE TABLE study_sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    deck_id    TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    FOREIGN KEY (user_id, deck_id) REFERENCES decks (user_id, id) ON DELETE CASCADE
);
CREATE INDEX study_sessions_deck ON study_sessions (user_id, deck_id);

CREATE TABLE study_session_items (
    session_id  TEXT NOT NULL REFERENCES study_sessions (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    user_id     TEXT NOT NULL,
    card_id     TEXT NOT NULL,
    reviewed_at INTEGER,
    PRIMARY KEY (session_id, position),
    FOREIGN KEY (user_id, card_id) REFERENCES cards (user_id, id) ON DELETE CASCADE
);
CREATE INDEX study_session_items_pending ON study_session_items (session_id, card_id, position) WHERE reviewed_at IS NULL;
CREATE INDEX study_session_items_card ON study_session_items (user_id, card_id);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    hint         TEXT NOT NULL,
    hash         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

CREATE TABLE web_sessions (
    kind       TEXT NOT NULL,
    hash       BLOB NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (kind, hash)
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);

CREATE TABLE exposure_settings (
    user_id        TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    read_only      BOOLEAN NOT NULL DEFAULT FALSE,
    disabled_tools TEXT NOT NULL DEFAULT '[]',
    updated_at     INTEGER NOT NULL
);

CREATE TABLE mcp_audit_events (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_kind TEXT NOT NULL,
    credential_id   TEXT NOT NULL DEFAULT '',
    tool            TEXT NOT NULL,
    action          TEXT NOT NULL,
    input_summary   TEXT,
    affected_ids    TEXT NOT NULL DEFAULT '[]',
    outcome         TEXT NOT NULL,
    error_kind      TEXT NOT NULL DEFAULT '',
    request_id      TEXT NOT NULL DEFAULT '',
    at              INTEGER NOT NULL
);
CREATE INDEX mcp_audit_events_user ON mcp_audit_events (user_id, id DESC);
CREATE INDEX mcp_audit_events_tool ON mcp_audit_events (user_id, tool, id DESC);
CREATE INDEX mcp_audit_events_credential ON mcp_audit_events (user_id, credential_id, id DESC);

CREATE TABLE idempotency_keys (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    idem_key    TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    result      BLOB,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (user_id, scope, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE media (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    filename     TEXT NOT NULL DEFAULT '',
    max_bytes    INTEGER NOT NULL,
    token_hash   BLOB,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    uploaded_at  INTEGER,
    size         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX media_user ON media (user_id, created_at);

-- +goose Down
DROP TABLE media;
DROP TABLE idempotency_keys;
DROP TABLE mcp_audit_events;
DROP TABLE exposure_settings;
DROP TABLE web_sessions;
DROP TABLE api_keys;
DROP TABLE study_session_items;
DROP TABLE study_sessions;
DROP TABLE review_logs;
DROP TRIGGER cards_fts_update;
DROP TRIGGER cards_fts_delete;
DROP TRIGGER cards_fts_insert;
DROP TABLE cards_fts;
DROP TABLE cards;
DROP TABLE decks;
DROP TABLE users;
