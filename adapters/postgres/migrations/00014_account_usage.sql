-- The daily write quota (issue 10 §2): one row per account counting its
-- writes (cards added, reviews, uploads) on its current learner's date;
-- the first write of a new date starts the count over, so rows never pile
-- up.

-- +goose Up
CREATE TABLE account_usage (
    user_id TEXT COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    day     TEXT NOT NULL,
    writes  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE account_usage;
