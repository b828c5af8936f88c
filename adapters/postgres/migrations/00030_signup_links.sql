-- An open sign-up's one-time link (issue 30, item 10): the account is
-- created when the link is used, not when it is asked for, so the link
-- names an email that has no account yet. Stored by the SHA-256 of its
-- token, like sign-in links; the purge deletes expired ones.

-- +goose Up
CREATE TABLE signup_links (
    hash       BYTEA PRIMARY KEY,
    email      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX signup_links_expiry ON signup_links (expires_at);

-- +goose Down
DROP TABLE signup_links;
