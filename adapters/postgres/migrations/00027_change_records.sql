-- Change records (issue 26 §2): what each mutation changed, written in its
-- transaction so that undo_changes can put it back. One row per item: the
-- operation it belongs to (shared with the audit row, whose new column
-- names it), who made it, the item's kind and id, its version right after
-- the change, and, as a small JSON object, the previous values of the
-- fields the change set. Kept 30 days (expires_at, for the purge). The
-- first index reads an operation's records, the second a credential's
-- (undo "everything this key did since …"), both newest first.

-- +goose Up
CREATE TABLE change_records (
    id              TEXT COLLATE "C" PRIMARY KEY,
    user_id         TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    operation_id    TEXT COLLATE "C" NOT NULL,
    credential_kind TEXT NOT NULL,
    credential_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    kind            TEXT NOT NULL,
    item_id         TEXT NOT NULL,
    version         BIGINT NOT NULL DEFAULT 0,
    prev            TEXT,
    at              BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    undone_by       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX change_records_operation ON change_records (user_id, operation_id, id DESC);
CREATE INDEX change_records_credential ON change_records (user_id, credential_id, id DESC);
CREATE INDEX change_records_expiry ON change_records (expires_at);
ALTER TABLE mcp_audit_events ADD COLUMN operation_id TEXT COLLATE "C" NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE mcp_audit_events DROP COLUMN operation_id;
DROP TABLE change_records;
