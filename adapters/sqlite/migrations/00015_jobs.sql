-- +goose Up
-- Long jobs (imports, optimisations) that run detached from requests. Any
-- instance may run any job: a runner claims a queued job, or a running one
-- whose lease ended (its runner is gone), and renews the lease while it
-- works. input and result are JSON; progress is done of total units.
CREATE TABLE jobs (
    id               TEXT NOT NULL PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind             TEXT NOT NULL,
    scope            TEXT NOT NULL,
    status           TEXT NOT NULL,
    input            TEXT NOT NULL DEFAULT '{}',
    result           TEXT,
    error            TEXT NOT NULL DEFAULT '',
    progress_done    INTEGER NOT NULL DEFAULT 0,
    progress_total   INTEGER NOT NULL DEFAULT 0,
    progress_message TEXT NOT NULL DEFAULT '',
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    lease_owner      TEXT NOT NULL DEFAULT '',
    lease_until      INTEGER NOT NULL DEFAULT 0,
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER
);
CREATE INDEX jobs_user ON jobs (user_id, created_at);
CREATE INDEX jobs_runnable ON jobs (status, created_at) WHERE status IN ('queued', 'running');

-- +goose Down
DROP TABLE jobs;
