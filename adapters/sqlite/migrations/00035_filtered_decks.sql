-- Filtered decks (issue 28 §4): a saved search gathers cards from their
-- home decks into a deck to study. A gathered card's deck_id is the
-- filtered deck and home_deck_id its home (Anki's odid); NULL at home.
-- filtered_decks holds each filtered deck's search and options; it goes
-- with its deck.

-- +goose Up
ALTER TABLE cards ADD COLUMN home_deck_id TEXT;
CREATE INDEX cards_home_deck ON cards (user_id, home_deck_id) WHERE home_deck_id IS NOT NULL;
CREATE TABLE filtered_decks (
    deck_id    TEXT PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    search     TEXT NOT NULL,
    card_limit INTEGER NOT NULL,
    card_order TEXT NOT NULL,
    reschedule BOOLEAN NOT NULL,
    built_at   INTEGER NOT NULL
);
CREATE INDEX filtered_decks_user ON filtered_decks (user_id);

-- +goose Down
DROP TABLE filtered_decks;
DROP INDEX cards_home_deck;
ALTER TABLE cards DROP COLUMN home_deck_id;
