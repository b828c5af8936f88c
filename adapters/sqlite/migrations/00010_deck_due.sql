-- Each deck's queued cards (unsuspended, not new) counted by due time,
-- kept by triggers as cards come, go, move and are rescheduled, so the
-- due counts (list_decks' and get_deck's due now, the snapshot's, the
-- plan's forecast) add up one row per distinct due time instead of
-- reading every due card: a 100,000-card account's list_decks walked all
-- of its due cards. Review-phase cards are due from the start of their
-- due day in the learner's day, so a deck's review cards share one due
-- time per day; learning steps are exact instants, and few at a time.
-- A count "due at or before t" is exact for any t: SUM(n) over due <= t.

-- +goose Up
CREATE TABLE deck_due (
    user_id TEXT NOT NULL,
    deck_id TEXT NOT NULL,
    due     INTEGER NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (user_id, deck_id, due),
    FOREIGN KEY (user_id, deck_id) REFERENCES decks (user_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

INSERT INTO deck_due (user_id, deck_id, due, n)
SELECT user_id, deck_id, due, COUNT(*) FROM cards
WHERE suspended = FALSE AND phase <> 'new'
GROUP BY user_id, deck_id, due;

-- +goose StatementBegin
CREATE TRIGGER cards_due_insert AFTER INSERT ON cards
WHEN new.suspended = FALSE AND new.phase <> 'new'
BEGIN
    INSERT INTO deck_due (user_id, deck_id, due, n) VALUES (new.user_id, new.deck_id, new.due, 1)
    ON CONFLICT (user_id, deck_id, due) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER cards_due_delete AFTER DELETE ON cards
WHEN old.suspended = FALSE AND old.phase <> 'new'
BEGIN
    UPDATE deck_due SET n = n - 1 WHERE user_id = old.user_id AND deck_id = old.deck_id AND due = old.due;
    DELETE FROM deck_due WHERE user_id = old.user_id AND deck_id = old.deck_id AND due = old.due AND n <= 0;
END;
-- +goose StatementEnd

-- An update that changes a queued card's deck or due time, or takes it
-- out of the queue, takes it from its old count...
-- +goose StatementBegin
CREATE TRIGGER cards_due_update_old AFTER UPDATE OF deck_id, suspended, phase, due ON cards
WHEN old.suspended = FALSE AND old.phase <> 'new'
    AND (new.suspended <> FALSE OR new.phase = 'new' OR old.deck_id IS NOT new.deck_id OR old.due IS NOT new.due)
BEGIN
    UPDATE deck_due SET n = n - 1 WHERE user_id = old.user_id AND deck_id = old.deck_id AND due = old.due;
    DELETE FROM deck_due WHERE user_id = old.user_id AND deck_id = old.deck_id AND due = old.due AND n <= 0;
END;
-- +goose StatementEnd

-- ...and one that changes them, or puts a card in the queue, adds it to
-- its new count.
-- +goose StatementBegin
CREATE TRIGGER cards_due_update_new AFTER UPDATE OF deck_id, suspended, phase, due ON cards
WHEN new.suspended = FALSE AND new.phase <> 'new'
    AND (old.suspended <> FALSE OR old.phase = 'new' OR old.deck_id IS NOT new.deck_id OR old.due IS NOT new.due)
BEGIN
    INSERT INTO deck_due (user_id, deck_id, due, n) VALUES (new.user_id, new.deck_id, new.due, 1)
    ON CONFLICT (user_id, deck_id, due) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER cards_due_update_new;
DROP TRIGGER cards_due_update_old;
DROP TRIGGER cards_due_delete;
DROP TRIGGER cards_due_insert;
DROP TABLE deck_due;
