-- Import staging (issue 13 §6). A package import writes its new notes,
-- cards and review logs here, in chunks of short transactions, under a
-- stage of its own; no read of notes, cards or reviews looks here, so
-- nothing of an import is visible before it publishes. Publishing copies
-- the stage into the live tables in one short transaction and marks the
-- stage published (a published stage is never copied again); the staged
-- rows are then deleted in small batches. A stage whose import failed,
-- was canceled or lost its runner is deleted the same way: by the import
-- itself, by the job's next attempt (job_id), or by the purge once it
-- has not been touched for a while (touched_at). The columns of the
-- staged tables are those of notes, cards and review_logs plus stage_id
-- and seq, an increasing key: staged rows are appended, not spread over
-- a B-tree by their random ids, and copied and dropped in that order.

-- +goose Up
CREATE TABLE import_stages (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    job_id       TEXT,
    touched_at   INTEGER NOT NULL,
    published_at INTEGER
);
CREATE INDEX import_stages_touched ON import_stages (touched_at);
CREATE INDEX import_stages_job ON import_stages (job_id);

CREATE TABLE import_notes (
    seq        INTEGER PRIMARY KEY,
    stage_id   TEXT NOT NULL REFERENCES import_stages (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    note_type  TEXT NOT NULL,
    guid       TEXT NOT NULL,
    fields     TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '[]',
    version    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX import_notes_stage ON import_notes (stage_id, seq);

CREATE TABLE import_cards (
    seq            INTEGER PRIMARY KEY,
    stage_id       TEXT NOT NULL REFERENCES import_stages (id) ON DELETE CASCADE,
    id             TEXT NOT NULL,
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
    note_id        TEXT,
    ord            INTEGER
);
CREATE INDEX import_cards_stage ON import_cards (stage_id, seq);

CREATE TABLE import_review_logs (
    seq            INTEGER PRIMARY KEY,
    stage_id       TEXT NOT NULL REFERENCES import_stages (id) ON DELETE CASCADE,
    id             TEXT NOT NULL,
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
    day            INTEGER,
    kind           TEXT NOT NULL DEFAULT 'review',
    prev_interval  INTEGER,
    prev_state     TEXT
);
CREATE INDEX import_review_logs_stage ON import_review_logs (stage_id, seq);

-- +goose Down
DROP TABLE import_review_logs;
DROP TABLE import_cards;
DROP TABLE import_notes;
DROP TABLE import_stages;
