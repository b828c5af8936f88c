-- The purge deletes what has expired in small batches, picking each batch
-- along an index on its time: study sessions and upload intents had none
-- (sign-in links, web sessions, idempotency keys, OAuth codes and tokens
-- have theirs).

-- +goose Up
CREATE INDEX study_sessions_expiry ON study_sessions (expires_at);
CREATE INDEX media_intents_expiry ON media (expires_at) WHERE uploaded_at IS NULL;

-- +goose Down
DROP INDEX media_intents_expiry;
DROP INDEX study_sessions_expiry;
