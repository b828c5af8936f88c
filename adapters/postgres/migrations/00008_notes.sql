-- +goose Up
-- Notes: fields of a note type from which cards are made. note_type is a
-- stock type's name; fields and tags are JSON arrays; guid is unique per
-- user (Anki's note GUID for imported notes). A card made from a note
-- names it and its ord (template index, or cloze number - 1); cards
-- without a note keep NULL in both.
CREATE TABLE notes (
    id         TEXT COLLATE "C" NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    note_type  TEXT NOT NULL,
    guid       TEXT NOT NULL,
    fields     TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '[]',
    version    BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, id),
    UNIQUE (user_id, guid)
);
ALTER TABLE cards ADD COLUMN note_id TEXT COLLATE "C";
ALTER TABLE cards ADD COLUMN ord INTEGER;
CREATE INDEX cards_note ON cards (user_id, note_id, ord) WHERE note_id IS NOT NULL;

-- +goose Down
DROP INDEX cards_note;
ALTER TABLE cards DROP COLUMN ord;
ALTER TABLE cards DROP COLUMN note_id;
DROP TABLE notes;
