-- Media an import stores belong to its stage until it publishes (issue 13
-- §6, nothing half-imported is ever visible): stage_id names the import
-- stage (migration 00017) of a media row the import stored, and every read
-- of media that lists, counts as referable or serves rows looks only at
-- rows without one. Publishing the stage clears it in the publishing
-- transaction; a failed, canceled or dead import's staged media are
-- deleted with its stage, their blobs too unless another row of the
-- account has the same bytes. Staged media count against the quota (their
-- bytes are stored) until then. media_user_name finds the account's files
-- of a name, so a re-import reuses a file it has already (same name and
-- bytes) instead of storing it again.

-- +goose Up
ALTER TABLE media ADD COLUMN stage_id TEXT;
CREATE INDEX media_stage ON media (stage_id) WHERE stage_id IS NOT NULL;
CREATE INDEX media_user_name ON media (user_id, filename);

-- +goose Down
DROP INDEX media_user_name;
DROP INDEX media_stage;
ALTER TABLE media DROP COLUMN stage_id;
