-- A card's flag (issue 31 §12): 0 none, 1-7 Anki's red, orange, green,
-- blue, pink, turquoise and purple. The card browser's flag:N finds them;
-- no index, as a flag filters the rows a user's or deck's search selects.

-- +goose Up
ALTER TABLE cards ADD COLUMN flag SMALLINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE cards DROP COLUMN flag;
