-- The learner's day: each account's timezone (IANA name) and the local
-- hour its day rolls over, the learn-ahead limit of learning steps, and
-- optional account-wide daily caps (0 = none). An account without a row
-- has the defaults (UTC, 4, 20, no caps).

-- +goose Up
CREATE TABLE account_settings (
    user_id             TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    timezone            TEXT NOT NULL,
    rollover_hour       INTEGER NOT NULL,
    learn_ahead_minutes INTEGER NOT NULL,
    new_per_day         INTEGER NOT NULL DEFAULT 0,
    reviews_per_day     INTEGER NOT NULL DEFAULT 0,
    updated_at          INTEGER NOT NULL
);

-- +goose Down
DROP TABLE account_settings;
