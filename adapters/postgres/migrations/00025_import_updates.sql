-- A re-import's updates of the notes and cards the account had wait in
-- the stage too (issue 13 §9, memory bounded by the largest media file,
-- not the package): each row is one note's pending update (its fields and
-- tags, its cards' text and scheduling state, as the domain encodes it),
-- appended while the import stages and read back in seq order, a page at
-- a time, by the publishing transaction. Before, the importer held every
-- updated note in memory until then. Rows are dropped with their stage.

-- +goose Up
CREATE TABLE import_updates (
    seq      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stage_id TEXT COLLATE "C" NOT NULL REFERENCES import_stages (id) ON DELETE CASCADE,
    body     TEXT NOT NULL
);
CREATE INDEX import_updates_stage ON import_updates (stage_id, seq);

-- +goose Down
DROP TABLE import_updates;
