-- +goose Up
-- Note types of a user's own (issue 13 §2): those an Anki package brought
-- that are not stock types. A note of such a type names it by id in
-- notes.note_type (ids start with "nt_"; stock types are named). fields
-- is a JSON array of names, templates a JSON array of {name, front,
-- back}; anki_id is the package's model id, to match it on re-import.
CREATE TABLE note_types (
    id         TEXT COLLATE "C" NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    fields     TEXT NOT NULL,
    templates  TEXT NOT NULL,
    css        TEXT NOT NULL DEFAULT '',
    anki_id    BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE UNIQUE INDEX note_types_id ON note_types (id);

-- +goose Down
DROP TABLE note_types;
