-- A buried card (issue 27: a sibling of a card studied today, or buried
-- by bury_cards) is left out of every study queue until buried_until, the
-- start of the learner's next day when it was buried; NULL, or a time
-- past, is not buried. No index: the queues' reads filter the rows the
-- deck and due time already select, and search's "buried" state is rare.

-- +goose Up
ALTER TABLE cards ADD COLUMN buried_until BIGINT;

-- +goose Down
ALTER TABLE cards DROP COLUMN buried_until;
