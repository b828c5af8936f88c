-- The trash (issue 10 §3): deleting a deck or cards copies their rows
-- (the deck, its cards, their review logs) here in the same transaction
-- and then deletes them as before, so no read of decks, cards or reviews
-- sees them and the counts and caps leave them out; restoring copies them
-- back. The columns are those of decks, cards and review_logs plus when
-- the item was deleted; a card that went with its deck names it in
-- trash_deck_id (NULL when it was deleted on its own). The purge deletes
-- what was deleted 30 days ago.

-- +goose Up
CREATE TABLE trash_decks (
    id          TEXT COLLATE "C" PRIMARY KEY,
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    settings    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    preset_id   TEXT COLLATE "C",
    deleted_at  BIGINT NOT NULL
);
CREATE INDEX trash_decks_user ON trash_decks (user_id, deleted_at);
CREATE INDEX trash_decks_deleted ON trash_decks (deleted_at);

CREATE TABLE trash_cards (
    id             TEXT COLLATE "C" PRIMARY KEY,
    user_id        TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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
    note_id        TEXT COLLATE "C",
    ord            INTEGER,
    trash_deck_id  TEXT COLLATE "C",
    deleted_at     BIGINT NOT NULL
);
CREATE INDEX trash_cards_user ON trash_cards (user_id, deleted_at);
CREATE INDEX trash_cards_deck ON trash_cards (user_id, trash_deck_id);
CREATE INDEX trash_cards_deleted ON trash_cards (deleted_at);

CREATE TABLE trash_review_logs (
    id             TEXT COLLATE "C" PRIMARY KEY,
    user_id        TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    card_id        TEXT COLLATE "C" NOT NULL,
    deck_id        TEXT COLLATE "C" NOT NULL,
    session_id     TEXT COLLATE "C",
    rating         TEXT NOT NULL,
    prev_phase     TEXT NOT NULL,
    phase          TEXT NOT NULL,
    due            BIGINT NOT NULL,
    stability      DOUBLE PRECISION NOT NULL,
    difficulty     DOUBLE PRECISION NOT NULL,
    scheduled_days BIGINT NOT NULL,
    reps           BIGINT NOT NULL,
    lapses         BIGINT NOT NULL,
    step           BIGINT NOT NULL,
    last_review    BIGINT,
    reviewed_at    BIGINT NOT NULL,
    duration_ms    INTEGER,
    day            INTEGER,
    kind           TEXT NOT NULL DEFAULT 'review',
    prev_interval  INTEGER,
    prev_state     TEXT
);
CREATE INDEX trash_review_logs_card ON trash_review_logs (user_id, card_id);

-- +goose Down
DROP TABLE trash_review_logs;
DROP TABLE trash_cards;
DROP TABLE trash_decks;
