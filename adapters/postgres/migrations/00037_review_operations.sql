-- A review is undoable through undo_changes (issue 26 §2.2): each review
-- log names the operation that wrote it (the submit_review call's
-- operation id, shared with its audit row) and the credential it was made
-- with, and the card's version right after the review (the undo's
-- version check), written in the review's own INSERT; NULL for logs
-- written before these columns and for reviews made outside an operation. An undone
-- review keeps its row with kind 'undone' (was 'review') or 'undone-cram'
-- (was 'cram'): gone from history and statistics, still counted against
-- the day's limits.

-- +goose Up
ALTER TABLE review_logs ADD COLUMN operation_id TEXT;
ALTER TABLE review_logs ADD COLUMN credential_id TEXT;
ALTER TABLE review_logs ADD COLUMN card_version BIGINT;
CREATE INDEX review_logs_operation ON review_logs (user_id, operation_id) WHERE operation_id IS NOT NULL;
ALTER TABLE trash_review_logs ADD COLUMN operation_id TEXT;
ALTER TABLE trash_review_logs ADD COLUMN credential_id TEXT;
ALTER TABLE trash_review_logs ADD COLUMN card_version BIGINT;

-- +goose Down
ALTER TABLE trash_review_logs DROP COLUMN card_version;
ALTER TABLE trash_review_logs DROP COLUMN credential_id;
ALTER TABLE trash_review_logs DROP COLUMN operation_id;
DROP INDEX review_logs_operation;
ALTER TABLE review_logs DROP COLUMN card_version;
ALTER TABLE review_logs DROP COLUMN credential_id;
ALTER TABLE review_logs DROP COLUMN operation_id;
