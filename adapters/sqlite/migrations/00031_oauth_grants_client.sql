-- The purge of registered OAuth clients never used (issue 30) asks, for
-- each client registered before the cut-off, whether any grant names it:
-- this index answers that without reading every grant.

-- +goose Up
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- +goose Down
DROP INDEX oauth_grants_client;
