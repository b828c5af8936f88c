-- Each deck's queued cards (unsuspended, not new) counted by due time,
-- kept by a trigger as cards come, go, move and are rescheduled, so the
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
    due     BIGINT NOT NULL,
    n       BIGINT NOT NULL,
    PRIMARY KEY (user_id, deck_id, due),
    FOREIGN KEY (user_id, deck_id) REFERENCES decks (user_id, id) ON DELETE CASCADE
);

INSERT INTO deck_due (user_id, deck_id, due, n)
SELECT user_id, deck_id, due, COUNT(*) FROM cards
WHERE NOT suspended AND phase <> 'new'
GROUP BY user_id, deck_id, due;

-- +goose StatementBegin
CREATE FUNCTION deck_due_add(p_user TEXT, p_deck TEXT, p_due BIGINT, p_sign BIGINT) RETURNS void AS $$
BEGIN
    IF p_sign > 0 THEN
        INSERT INTO deck_due (user_id, deck_id, due, n) VALUES (p_user, p_deck, p_due, 1)
        ON CONFLICT (user_id, deck_id, due) DO UPDATE SET n = deck_due.n + 1;
    ELSE
        DELETE FROM deck_due WHERE user_id = p_user AND deck_id = p_deck AND due = p_due AND n <= 1;
        IF NOT FOUND THEN
            UPDATE deck_due SET n = n - 1 WHERE user_id = p_user AND deck_id = p_deck AND due = p_due;
        END IF;
    END IF;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- The two rows an update changes are taken in key order, so two
-- transactions moving cards between the same due times cannot deadlock.
-- +goose StatementBegin
CREATE FUNCTION cards_due() RETURNS trigger AS $$
DECLARE
    was BOOLEAN := FALSE;
    now_queued BOOLEAN := FALSE;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        was := NOT OLD.suspended AND OLD.phase <> 'new';
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        now_queued := NOT NEW.suspended AND NEW.phase <> 'new';
    END IF;
    IF was AND now_queued THEN
        IF OLD.deck_id = NEW.deck_id AND OLD.due = NEW.due THEN
            RETURN NULL;
        END IF;
        IF (OLD.deck_id, OLD.due) < (NEW.deck_id, NEW.due) THEN
            PERFORM deck_due_add(OLD.user_id, OLD.deck_id, OLD.due, -1);
            PERFORM deck_due_add(NEW.user_id, NEW.deck_id, NEW.due, 1);
        ELSE
            PERFORM deck_due_add(NEW.user_id, NEW.deck_id, NEW.due, 1);
            PERFORM deck_due_add(OLD.user_id, OLD.deck_id, OLD.due, -1);
        END IF;
    ELSIF was THEN
        PERFORM deck_due_add(OLD.user_id, OLD.deck_id, OLD.due, -1);
    ELSIF now_queued THEN
        PERFORM deck_due_add(NEW.user_id, NEW.deck_id, NEW.due, 1);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER cards_due AFTER INSERT OR DELETE ON cards FOR EACH ROW EXECUTE FUNCTION cards_due();
CREATE TRIGGER cards_due_update AFTER UPDATE OF deck_id, suspended, phase, due ON cards FOR EACH ROW
    WHEN (OLD.deck_id IS DISTINCT FROM NEW.deck_id OR OLD.suspended IS DISTINCT FROM NEW.suspended
        OR OLD.phase IS DISTINCT FROM NEW.phase OR OLD.due IS DISTINCT FROM NEW.due)
    EXECUTE FUNCTION cards_due();

-- +goose Down
DROP TRIGGER cards_due_update ON cards;
DROP TRIGGER cards_due ON cards;
DROP FUNCTION cards_due();
DROP FUNCTION deck_due_add(TEXT, TEXT, BIGINT, BIGINT);
DROP TABLE deck_due;
