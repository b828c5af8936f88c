-- Change records' indexes in ascending id order (issue 26 §2.4). Ids grow
-- with time (UUIDv7), so the newest record of an operation or a
-- credential sorted first in (…, id DESC): every insert landed at the
-- front of its range, and a full page split by moving cells among its
-- siblings rather than by starting a new page. Ascending, a mutation's
-- records are appended; the listings, newest first, read the same index
-- backwards.
-- update_cards of 100 cards: the records' INSERT and commit 0.93 ms ->
-- 0.72 ms on SQLite.

-- +goose Up
DROP INDEX change_records_operation;
DROP INDEX change_records_credential;
CREATE INDEX change_records_operation ON change_records (user_id, operation_id, id);
CREATE INDEX change_records_credential ON change_records (user_id, credential_id, id);

-- +goose Down
DROP INDEX change_records_operation;
DROP INDEX change_records_credential;
CREATE INDEX change_records_operation ON change_records (user_id, operation_id, id DESC);
CREATE INDEX change_records_credential ON change_records (user_id, credential_id, id DESC);
