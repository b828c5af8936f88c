-- Cards inserted or deleted are counted into deck_counts and deck_due once
-- per statement (transition tables) instead of once per card. A bulk
-- insert (a package import's publishing copy) of 100,000 cards into five
-- decks updated each deck's deck_counts row 20,000 times in one
-- transaction: every update had to step over the row's earlier versions,
-- none of which could be pruned before the commit, so the publish took
-- minutes and left deck_counts at 1,300 pages for 5 rows (issue 12 §3).
-- Now it is one update per deck and one upsert per due time. Deleting a
-- deck's cards (the cascade of a deck deletion is one statement too) is
-- counted the same way. Updates keep their per-row triggers, which skip
-- the rows whose deck, phase, suspension and due do not change. Rows are
-- taken in key order, as deck_due_add's callers do, so two transactions
-- cannot deadlock on them. SQLite updates rows in place and keeps its
-- per-row triggers.

-- +goose Up
DROP TRIGGER cards_counts ON cards;
DROP TRIGGER cards_due ON cards;

-- The inserted or deleted cards are the transition table changed_cards
-- of either trigger; sign says which.
-- +goose StatementBegin
CREATE FUNCTION cards_changed() RETURNS trigger AS $$
DECLARE
    sign BIGINT := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    r RECORD;
BEGIN
    FOR r IN SELECT deck_id, COUNT(*) AS total,
            COUNT(*) FILTER (WHERE NOT suspended AND phase = 'new') AS fresh,
            COUNT(*) FILTER (WHERE NOT suspended AND phase IN ('learning', 'relearning')) AS learning,
            COUNT(*) FILTER (WHERE NOT suspended AND phase = 'review') AS review,
            COUNT(*) FILTER (WHERE suspended) AS suspended
        FROM changed_cards GROUP BY deck_id ORDER BY deck_id
    LOOP
        UPDATE deck_counts SET total = total + sign * r.total, fresh = fresh + sign * r.fresh,
            learning = learning + sign * r.learning, review = review + sign * r.review,
            suspended = suspended + sign * r.suspended
        WHERE deck_id = r.deck_id;
    END LOOP;
    IF sign > 0 THEN
        INSERT INTO deck_due (user_id, deck_id, due, n)
        SELECT user_id, deck_id, due, COUNT(*) FROM changed_cards WHERE NOT suspended AND phase <> 'new'
        GROUP BY user_id, deck_id, due ORDER BY user_id, deck_id, due
        ON CONFLICT (user_id, deck_id, due) DO UPDATE SET n = deck_due.n + EXCLUDED.n;
        RETURN NULL;
    END IF;
    FOR r IN SELECT user_id, deck_id, due, COUNT(*) AS n FROM changed_cards WHERE NOT suspended AND phase <> 'new'
        GROUP BY user_id, deck_id, due ORDER BY user_id, deck_id, due
    LOOP
        DELETE FROM deck_due WHERE user_id = r.user_id AND deck_id = r.deck_id AND due = r.due AND n <= r.n;
        IF NOT FOUND THEN
            UPDATE deck_due SET n = n - r.n WHERE user_id = r.user_id AND deck_id = r.deck_id AND due = r.due;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER cards_inserted AFTER INSERT ON cards REFERENCING NEW TABLE AS changed_cards
    FOR EACH STATEMENT EXECUTE FUNCTION cards_changed();
CREATE TRIGGER cards_deleted AFTER DELETE ON cards REFERENCING OLD TABLE AS changed_cards
    FOR EACH STATEMENT EXECUTE FUNCTION cards_changed();

-- +goose Down
DROP TRIGGER cards_deleted ON cards;
DROP TRIGGER cards_inserted ON cards;
DROP FUNCTION cards_changed();
CREATE TRIGGER cards_counts AFTER INSERT OR DELETE ON cards FOR EACH ROW EXECUTE FUNCTION cards_counts();
CREATE TRIGGER cards_due AFTER INSERT OR DELETE ON cards FOR EACH ROW EXECUTE FUNCTION cards_due();
