-- A published import stage's review logs are live before they reach
-- review_logs (issue 13 §6: other writers are never held for long).
-- Publishing copies a stage's notes and cards and marks it published, in
-- one transaction; its review logs, most of an Anki collection's rows,
-- stay in import_review_logs, and every read of review logs reads them
-- there too (their card's deck, through the card; once, even if a copy
-- reached review_logs), until the stage is dropped, which moves them a
-- batch a transaction into review_logs. The first index finds a user's
-- published stages (none, nearly always); the second the staged logs of
-- a user's stage (and card), led by the user so that no other account's
-- read of its review logs scans the logs another account's import has
-- staged (Postgres chose that scan: submit_review's daily count took
-- 38 ms instead of 0.1 with 100,000 logs staged).

-- +goose Up
CREATE INDEX import_stages_published ON import_stages (user_id) WHERE published_at IS NOT NULL;
CREATE INDEX import_review_logs_card ON import_review_logs (user_id, stage_id, card_id);

-- +goose Down
DROP INDEX import_review_logs_card;
DROP INDEX import_stages_published;
