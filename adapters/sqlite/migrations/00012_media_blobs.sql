-- +goose Up
-- Media (issue 9): an upload claims its intent's token once (claimed_at),
-- records the file's SHA-256 (equal files of a user share one blob,
-- media/<user>/<sha256>) and the credential that asked for it (an upload
-- after that credential's revocation is refused).
ALTER TABLE media ADD COLUMN claimed_at INTEGER;
ALTER TABLE media ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE media ADD COLUMN credential_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE media ADD COLUMN credential_id TEXT NOT NULL DEFAULT '';
CREATE INDEX media_user_sha ON media (user_id, sha256);
CREATE INDEX media_uploaded ON media (uploaded_at) WHERE uploaded_at IS NOT NULL;
-- One row per user whose media a transaction locks (MediaStore.LockMedia).
CREATE TABLE media_locks (
    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    n       INTEGER NOT NULL
);
-- The database blob store (sqlstore.BlobStore): an object per blob
-- version, key NULL while staged; its bytes in chunks.
CREATE TABLE blob_objects (
    blob_id      TEXT PRIMARY KEY,
    blob_key     TEXT,
    size         INTEGER NOT NULL DEFAULT 0,
    chunk_size   INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    committed_at INTEGER
);
CREATE INDEX blob_objects_key ON blob_objects (blob_key, committed_at) WHERE blob_key IS NOT NULL;
CREATE INDEX blob_objects_staged ON blob_objects (created_at) WHERE blob_key IS NULL;
CREATE TABLE blob_chunks (
    blob_id TEXT NOT NULL REFERENCES blob_objects (blob_id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (blob_id, seq)
);

-- +goose Down
DROP TABLE blob_chunks;
DROP TABLE blob_objects;
DROP TABLE media_locks;
DROP INDEX media_uploaded;
DROP INDEX media_user_sha;
ALTER TABLE media DROP COLUMN credential_id;
ALTER TABLE media DROP COLUMN credential_kind;
ALTER TABLE media DROP COLUMN sha256;
ALTER TABLE media DROP COLUMN claimed_at;
