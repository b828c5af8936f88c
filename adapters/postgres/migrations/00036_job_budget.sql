-- A running job's budget and its use of it (issue 29 §3.2): JSON of
-- contracts.JobBudgetUse, stored with the progress at each lease
-- renewal; '' before a runner starts the job.

-- +goose Up
ALTER TABLE jobs ADD COLUMN progress_budget TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE jobs DROP COLUMN progress_budget;
