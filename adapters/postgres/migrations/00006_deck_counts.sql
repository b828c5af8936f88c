-- Each deck's card counts by phase, kept by triggers as cards come, go,
-- move and change phase, so listing decks reads one row per deck instead
-- of every card (a 100,000-card account took 52 ms per list_decks).
-- Due-now counts depend on the time and stay a range read of cards_due.
-- fresh: unsuspended new; learning: unsuspended learning or relearning;
-- review: unsuspended review; suspended: suspended in any phase.

-- +goose Up
CREATE TABLE deck_counts (
    deck_id   TEXT PRIMARY KEY REFERENCES decks (id) ON DELETE CASCADE,
    total     BIGINT NOT NULL DEFAULT 0,
    fresh     BIGINT NOT NULL DEFAULT 0,
    learning  BIGINT NOT NULL DEFAULT 0,
    review    BIGINT NOT NULL DEFAULT 0,
    suspended BIGINT NOT NULL DEFAULT 0
);

INSERT INTO deck_counts (deck_id, total, fresh, learning, review, suspended)
SELECT d.id, COUNT(c.id),
    COUNT(*) FILTER (WHERE NOT c.suspended AND c.phase = 'new'),
    COUNT(*) FILTER (WHERE NOT c.suspended AND c.phase IN ('learning', 'relearning')),
    COUNT(*) FILTER (WHERE NOT c.suspended AND c.phase = 'review'),
    COUNT(*) FILTER (WHERE c.suspended)
FROM decks d LEFT JOIN cards c ON c.deck_id = d.id
GROUP BY d.id;

-- +goose StatementBegin
CREATE FUNCTION deck_counts_add(p_deck TEXT, p_suspended BOOLEAN, p_phase TEXT, p_sign BIGINT) RETURNS void AS $$
    UPDATE deck_counts SET total = total + p_sign,
        fresh = fresh + p_sign * (NOT p_suspended AND p_phase = 'new')::int,
        learning = learning + p_sign * (NOT p_suspended AND p_phase IN ('learning', 'relearning'))::int,
        review = review + p_sign * (NOT p_suspended AND p_phase = 'review')::int,
        suspended = suspended + p_sign * p_suspended::int
    WHERE deck_id = p_deck;
$$ LANGUAGE sql;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION cards_counts() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM deck_counts_add(OLD.deck_id, OLD.suspended, OLD.phase, -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM deck_counts_add(NEW.deck_id, NEW.suspended, NEW.phase, 1);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION decks_counts() RETURNS trigger AS $$
BEGIN
    INSERT INTO deck_counts (deck_id) VALUES (NEW.id);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER decks_counts AFTER INSERT ON decks FOR EACH ROW EXECUTE FUNCTION decks_counts();
CREATE TRIGGER cards_counts AFTER INSERT OR DELETE ON cards FOR EACH ROW EXECUTE FUNCTION cards_counts();
CREATE TRIGGER cards_counts_update AFTER UPDATE OF deck_id, suspended, phase ON cards FOR EACH ROW
    WHEN (OLD.deck_id IS DISTINCT FROM NEW.deck_id OR OLD.suspended IS DISTINCT FROM NEW.suspended OR OLD.phase IS DISTINCT FROM NEW.phase)
    EXECUTE FUNCTION cards_counts();

-- +goose Down
DROP TRIGGER cards_counts_update ON cards;
DROP TRIGGER cards_counts ON cards;
DROP TRIGGER decks_counts ON decks;
DROP FUNCTION decks_counts();
DROP FUNCTION cards_counts();
DROP FUNCTION deck_counts_add(TEXT, BOOLEAN, TEXT, BIGINT);
DROP TABLE deck_counts;
