-- +goose Up
-- An anonymous record of each deleted account: an id of its own and the
-- time, nothing that names the person. Everything else of the account is
-- deleted with it (ON DELETE CASCADE from users).
CREATE TABLE account_deletions (
    id         TEXT COLLATE "C" PRIMARY KEY,
    deleted_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE account_deletions;
