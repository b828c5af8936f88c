-- Takhtabush schema, PostgreSQL dialect. Times are unix milliseconds UTC
-- (BIGINT), ids TEXT with the "C" collation (bytewise order, as keyset
-- paging expects), tags and other lists TEXT holding JSON. Keep the SQL of
-- the partial indexes' WHERE clauses in step with sqlstore (queued).

-- +goose Up
CREATE TABLE users (
    id         TEXT COLLATE "C" PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);

CREATE TABLE decks (
    id          TEXT COLLATE "C" PRIMARY KEY,
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    settings    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (user_id, name),
    UNIQUE (user_id, id)
);

CREATE TABLE cards (
    id             TEXT COLLATE "C" PRIMARY KEY,
    user_id        TEXT COLLATE "C" NOT NULL,
    deck_id        TEXT COLLATE "C" NOT NULL,
    front          TEXT NOT NULL,
    back           TEXT NOT NULL,
    tags           TEXT NOT NULL DEFAULT '[]',
    suspended      BOOLEAN NOT NULL DEFAULT FALSE,
    phase          TEXT NOT NULL,
    due            BIGINT NOT NULL,
    stability      DOUBLE PRECISION NOT NULL DEFAULT 0,
    difficulty     DOUBLE PRECISION NOT NULL DEFAULT 0,
    scheduled_days INTEGER NOT NULL DEFAULT 0,
    reps           INTEGER NOT NULL DEFAULT 0,
    lapses         INTEGER NOT NULL DEFAULT 0,
    step           INTEGER NOT NULL DEFAULT 0,
    last_review    BIGINT,
    hash           TEXT COLLATE "C" NOT NULL,
    version        BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    -- 'simple': no stemming or stop words, right for words of any language
    search         tsvector GENERATED ALWAYS AS (to_tsvector('simple', front || ' ' || back || ' ' || tags)) STORED,
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
-- full-text search
CREATE INDEX cards_search ON cards USING GIN (search);

CREATE TABLE review_logs (
    id             TEXT COLLATE "C" PRIMARY KEY,
    user_id        TEXT COLLATE "C" NOT NULL,
    card_id        TEXT COLLATE "C" NOT NULL,
    deck_id        TEXT COLLATE "C" NOT NULL,
    session_id     TEXT COLLATE "C",
    rating         TEXT NOT NULL,
    prev_phase     TEXT NOT NULL,
    phase          TEXT NOT NULL,
    due            BIGINT NOT NULL,
    stability      DOUBLE PRECISION NOT NULL,
    difficulty     DOUBLE PRECISION NOT NULL,
    scheduled_days INTEGER NOT NULL,
    reps           INTEGER NOT NULL,
    lapses         INTEGER NOT NULL,
    step           INTEGER NOT NULL,
    last_review    BIGINT,
    reviewed_at    BIGINT NOT NULL,
    duration_ms    INTEGER,
    FOREIGN KEY (user_id, card_id) REFERENCES cards (user_id, id) ON DELETE CASCADE
);
CREATE INDEX review_logs_user_time ON review_logs (user_id, reviewed_at);
CREATE INDEX review_logs_deck_time ON review_logs (user_id, deck_id, reviewed_at);
CREATE INDEX review_logs_card ON review_logs (user_id, card_id);

CREATE TABLE study_sessions (
    id         TEXT COLLATE "C" PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL,
    deck_id    TEXT COLLATE "C" NOT NULL,
    started_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    FOREIGN KEY (user_id, deck_id) REFERENCES decks (user_id, id) ON DELETE CASCADE
);
CREATE INDEX study_sessions_deck ON study_sessions (user_id, deck_id);

CREATE TABLE study_session_items (
    session_id  TEXT COLLATE "C" NOT NULL REFERENCES study_sessions (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    user_id     TEXT COLLATE "C" NOT NULL,
    card_id     TEXT COLLATE "C" NOT NULL,
    reviewed_at BIGINT,
    PRIMARY KEY (session_id, position),
    FOREIGN KEY (user_id, card_id) REFERENCES cards (user_id, id) ON DELETE CASCADE
);
CREATE INDEX study_session_items_pending ON study_session_items (session_id, card_id, position) WHERE reviewed_at IS NULL;
CREATE INDEX study_session_items_card ON study_session_items (user_id, card_id);

CREATE TABLE api_keys (
    id           TEXT COLLATE "C" PRIMARY KEY,
    user_id      TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    hint         TEXT NOT NULL,
    hash         BYTEA NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

CREATE TABLE web_sessions (
    kind       TEXT NOT NULL,
    hash       BYTEA NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (kind, hash)
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);

CREATE TABLE exposure_settings (
    user_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    read_only      BOOLEAN NOT NULL DEFAULT FALSE,
    disabled_tools TEXT NOT NULL DEFAULT '[]',
    updated_at     BIGINT NOT NULL
);

CREATE TABLE mcp_audit_events (
    id              TEXT COLLATE "C" PRIMARY KEY,
    user_id         TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_kind TEXT NOT NULL,
    credential_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    tool            TEXT COLLATE "C" NOT NULL,
    action          TEXT NOT NULL,
    input_summary   TEXT,
    affected_ids    TEXT NOT NULL DEFAULT '[]',
    outcome         TEXT NOT NULL,
    error_kind      TEXT NOT NULL DEFAULT '',
    request_id      TEXT NOT NULL DEFAULT '',
    at              BIGINT NOT NULL
);
CREATE INDEX mcp_audit_events_user ON mcp_audit_events (user_id, id DESC);
CREATE INDEX mcp_audit_events_tool ON mcp_audit_events (user_id, tool, id DESC);
CREATE INDEX mcp_audit_events_credential ON mcp_audit_events (user_id, credential_id, id DESC);

CREATE TABLE idempotency_keys (
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scope       TEXT COLLATE "C" NOT NULL,
    idem_key    TEXT COLLATE "C" NOT NULL,
    fingerprint TEXT NOT NULL,
    result      BYTEA,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (user_id, scope, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE media (
    id           TEXT COLLATE "C" PRIMARY KEY,
    user_id      TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    filename     TEXT NOT NULL DEFAULT '',
    max_bytes    BIGINT NOT NULL,
    token_hash   BYTEA,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    uploaded_at  BIGINT,
    size         BIGINT NOT NULL DEFAULT 0
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
DROP TABLE cards;
DROP TABLE decks;
DROP TABLE users;
