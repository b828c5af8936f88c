-- Jobs are fair between accounts (issue 29 §3): at most one job of an
-- account runs at a time, across every instance. A claim that would give
-- an account a second running job fails on this index instead of
-- running it; a job still running from before (two of one account) is
-- queued again first, and its runner loses its lease at its next renewal.

-- +goose Up
UPDATE jobs SET status = 'queued', lease_owner = '', lease_until = 0
WHERE status = 'running' AND id NOT IN (SELECT min(id) FROM jobs WHERE status = 'running' GROUP BY user_id);
CREATE UNIQUE INDEX jobs_one_running ON jobs (user_id) WHERE status = 'running';

-- +goose Down
DROP INDEX jobs_one_running;
