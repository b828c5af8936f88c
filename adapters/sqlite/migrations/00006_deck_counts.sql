-- Each deck's card counts by phase, kept by triggers as cards come, go,
-- move and change phase, so listing decks reads one row per deck instead
-- of every card (a 100,000-card account took 52 ms per list_decks).
-- Due-now counts depend on the time and stay a range read of cards_due.
-- fresh: unsuspended new; learning: unsuspended learning or relearning;
-- review: unsuspended review; suspended: suspended in any phase.

-- +goose Up
CREATE TABLE deck_counts (
    deck_id   TEXT PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    total     INTEGER NOT NULL DEFAULT 0,
    fresh     INTEGER NOT NULL DEFAULT 0,
    learning  INTEGER NOT NULL DEFAULT 0,
    review    INTEGER NOT NULL DEFAULT 0,
    suspended INTEGER NOT NULL DEFAULT 0
);

INSERT INTO deck_counts (deck_id, total, fresh, learning, review, suspended)
SELECT d.id, COUNT(c.id),
    COALESCE(SUM(c.suspended = 0 AND c.phase = 'new'), 0),
    COALESCE(SUM(c.suspended = 0 AND c.phase IN ('learning', 'relearning')), 0),
    COALESCE(SUM(c.suspended = 0 AND c.phase = 'review'), 0),
    COALESCE(SUM(c.suspended <> 0), 0)
FROM decks d LEFT JOIN cards c ON c.deck_id = d.id
GROUP BY d.id;

-- +goose StatementBegin
CREATE TRIGGER decks_counts_insert AFTER INSERT ON decks BEGIN
    INSERT INTO deck_counts (deck_id) VALUES (new.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_counts_insert AFTER INSERT ON cards BEGIN
    UPDATE deck_counts SET total = total + 1,
        fresh = fresh + (new.suspended = 0 AND new.phase = 'new'),
        learning = learning + (new.suspended = 0 AND new.phase IN ('learning', 'relearning')),
        review = review + (new.suspended = 0 AND new.phase = 'review'),
        suspended = suspended + (new.suspended <> 0)
    WHERE deck_id = new.deck_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_counts_delete AFTER DELETE ON cards BEGIN
    UPDATE deck_counts SET total = total - 1,
        fresh = fresh - (old.suspended = 0 AND old.phase = 'new'),
        learning = learning - (old.suspended = 0 AND old.phase IN ('learning', 'relearning')),
        review = review - (old.suspended = 0 AND old.phase = 'review'),
        suspended = suspended - (old.suspended <> 0)
    WHERE deck_id = old.deck_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_counts_update AFTER UPDATE OF deck_id, suspended, phase ON cards
WHEN old.deck_id IS NOT new.deck_id OR old.suspended IS NOT new.suspended OR old.phase IS NOT new.phase
BEGIN
    UPDATE deck_counts SET total = total - 1,
        fresh = fresh - (old.suspended = 0 AND old.phase = 'new'),
        learning = learning - (old.suspended = 0 AND old.phase IN ('learning', 'relearning')),
        review = review - (old.suspended = 0 AND old.phase = 'review'),
        suspended = suspended - (old.suspended <> 0)
    WHERE deck_id = old.deck_id;
    UPDATE deck_counts SET total = total + 1,
        fresh = fresh + (new.suspended = 0 AND new.phase = 'new'),
        learning = learning + (new.suspended = 0 AND new.phase IN ('learning', 'relearning')),
        review = review + (new.suspended = 0 AND new.phase = 'review'),
        suspended = suspended + (new.suspended <> 0)
    WHERE deck_id = new.deck_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER cards_counts_update;
DROP TRIGGER cards_counts_delete;
DROP TRIGGER cards_counts_insert;
DROP TRIGGER decks_counts_insert;
DROP TABLE deck_counts;
