package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// oauthStore is the OAuth store on one handle.
type oauthStore struct{ *handle }

// OAuth returns the OAuth store on h.
func (h *handle) OAuth() ports.OAuthStore { return oauthStore{h} }

// OAuth returns the OAuth store outside any transaction.
func (s *Store) OAuth() ports.OAuthStore { return s.root.OAuth() }

func scopesText(sc []contracts.Scope) (string, error) {
	return jsonText(contracts.ScopeStrings(sc))
}

func parseScopeText(s string) ([]contracts.Scope, error) {
	list, err := parseStrings(s)
	if err != nil {
		return nil, err
	}
	out := make([]contracts.Scope, len(list))
	for i, v := range list {
		out[i] = contracts.Scope(v)
	}
	return out, nil
}

// CreateClient inserts a registered client. Conflict on a duplicate id.
func (s oauthStore) CreateClient(ctx context.Context, c contracts.OAuthClient) error {
	uris, err := jsonText(c.RedirectURIs)
	if err != nil {
		return contracts.Internal(err)
	}
	scopes, err := scopesText(c.Scopes)
	if err != nil {
		return contracts.Internal(err)
	}
	res, err := s.exec(ctx, `INSERT INTO oauth_clients (id, name, uri, redirect_uris, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING`, c.ID, c.Name, c.URI, uris, scopes, ms(c.CreatedAt))
	n, err := s.affected(ctx, res, err, "create oauth client")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "a client with this id already exists")
	}
	return nil
}

// ClientByID returns a registered client. Not found when absent.
func (s oauthStore) ClientByID(ctx context.Context, id string) (contracts.OAuthClient, error) {
	c := contracts.OAuthClient{Kind: contracts.OAuthClientRegistered}
	var uris, scopes string
	var created int64
	err := s.q.QueryRowContext(ctx, `SELECT id, name, uri, redirect_uris, scopes, created_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.URI, &uris, &scopes, &created)
	if errNoRows(err) {
		return contracts.OAuthClient{}, notFound("client")
	}
	if err != nil {
		return contracts.OAuthClient{}, s.s.wrap(ctx, err, "get oauth client")
	}
	if c.RedirectURIs, err = parseStrings(uris); err != nil {
		return contracts.OAuthClient{}, s.s.wrap(ctx, err, "get oauth client")
	}
	if c.Scopes, err = parseScopeText(scopes); err != nil {
		return contracts.OAuthClient{}, s.s.wrap(ctx, err, "get oauth client")
	}
	if len(c.Scopes) == 0 {
		c.Scopes = nil
	}
	c.CreatedAt = fromMs(created)
	return c, nil
}

// CreateCode inserts a code. Not found when the user does not exist.
func (s oauthStore) CreateCode(ctx context.Context, c ports.OAuthCodeRow) error {
	scopes, err := scopesText(c.Scopes)
	if err != nil {
		return contracts.Internal(err)
	}
	var grant any
	if c.GrantID != "" {
		grant = c.GrantID
	}
	_, err = s.exec(ctx, `INSERT INTO oauth_codes (hash, user_id, client_id, client_name, client_kind, redirect_uri, challenge, resource, scopes,
created_at, expires_at, used_at, grant_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		c.Hash, c.UserID, c.ClientID, c.ClientName, string(c.ClientKind), c.RedirectURI, c.Challenge, c.Resource, scopes,
		ms(c.CreatedAt), ms(c.ExpiresAt), msPtr(c.UsedAt), grant)
	return s.fail(ctx, err, "create oauth code", failMsgs{fk: "user not found", unique: "this code already exists"})
}

// UseCode marks a code used and returns it; first is true for the one
// call that marked it. Not found when absent.
func (s oauthStore) UseCode(ctx context.Context, hash []byte, at time.Time) (ports.OAuthCodeRow, bool, error) {
	res, err := s.exec(ctx, `UPDATE oauth_codes SET used_at = $2 WHERE hash = $1 AND used_at IS NULL`, hash, ms(at))
	n, err := s.affected(ctx, res, err, "use oauth code")
	if err != nil {
		return ports.OAuthCodeRow{}, false, err
	}
	c := ports.OAuthCodeRow{Hash: hash}
	var kind, scopes string
	var created, expires int64
	var used sql.NullInt64
	var grant sql.NullString
	err = s.q.QueryRowContext(ctx, `SELECT user_id, client_id, client_name, client_kind, redirect_uri, challenge, resource, scopes,
created_at, expires_at, used_at, grant_id FROM oauth_codes WHERE hash = $1`, hash).
		Scan(&c.UserID, &c.ClientID, &c.ClientName, &kind, &c.RedirectURI, &c.Challenge, &c.Resource, &scopes, &created, &expires, &used, &grant)
	if errNoRows(err) {
		return ports.OAuthCodeRow{}, false, notFound("code")
	}
	if err != nil {
		return ports.OAuthCodeRow{}, false, s.s.wrap(ctx, err, "use oauth code")
	}
	if c.Scopes, err = parseScopeText(scopes); err != nil {
		return ports.OAuthCodeRow{}, false, s.s.wrap(ctx, err, "use oauth code")
	}
	c.ClientKind = contracts.OAuthClientKind(kind)
	c.CreatedAt, c.ExpiresAt, c.UsedAt = fromMs(created), fromMs(expires), fromNullMs(used)
	c.GrantID = grant.String
	return c, n == 1, nil
}

// SetCodeGrant records the grant a code's exchange created.
func (s oauthStore) SetCodeGrant(ctx context.Context, hash []byte, grantID string) error {
	res, err := s.exec(ctx, `UPDATE oauth_codes SET grant_id = $2 WHERE hash = $1`, hash, grantID)
	n, err := s.affected(ctx, res, err, "set code grant")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("code")
	}
	return nil
}

const grantCols = `id, user_id, client_id, client_name, client_kind, resource, scopes, created_at, last_used_at, revoked_at, trusted`

// CreateGrant inserts a grant. Not found when the user does not exist.
func (s oauthStore) CreateGrant(ctx context.Context, g ports.OAuthGrantRow) error {
	scopes, err := scopesText(g.Scopes)
	if err != nil {
		return contracts.Internal(err)
	}
	_, err = s.exec(ctx, `INSERT INTO oauth_grants (`+grantCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		g.ID, g.UserID, g.ClientID, g.ClientName, string(g.ClientKind), g.Resource, scopes, ms(g.CreatedAt), msPtr(g.LastUsedAt), msPtr(g.RevokedAt), g.Trusted)
	return s.fail(ctx, err, "create oauth grant", failMsgs{fk: "user not found", unique: "a grant with this id already exists"})
}

// scanGrant reads grantCols from sc, starting at the first column.
func scanGrant(sc interface{ Scan(...any) error }, extra ...any) (ports.OAuthGrantRow, error) {
	var g ports.OAuthGrantRow
	var kind, scopes string
	var created int64
	var used, revoked sql.NullInt64
	dest := append([]any{&g.ID, &g.UserID, &g.ClientID, &g.ClientName, &kind, &g.Resource, &scopes, &created, &used, &revoked, &g.Trusted}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return g, err
	}
	var err error
	if g.Scopes, err = parseScopeText(scopes); err != nil {
		return g, err
	}
	g.ClientKind = contracts.OAuthClientKind(kind)
	g.CreatedAt, g.LastUsedAt, g.RevokedAt = fromMs(created), fromNullMs(used), fromNullMs(revoked)
	return g, nil
}

// GrantByID returns any user's grant. Not found when absent.
func (s oauthStore) GrantByID(ctx context.Context, id string) (ports.OAuthGrantRow, error) {
	g, err := scanGrant(s.q.QueryRowContext(ctx, `SELECT `+grantCols+` FROM oauth_grants WHERE id = $1`, id))
	if errNoRows(err) {
		return ports.OAuthGrantRow{}, notFound("grant")
	}
	if err != nil {
		return ports.OAuthGrantRow{}, s.s.wrap(ctx, err, "get oauth grant")
	}
	return g, nil
}

// ListGrants returns a user's unrevoked grants, newest first.
func (s oauthStore) ListGrants(ctx context.Context, userID string) ([]ports.OAuthGrantRow, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+grantCols+` FROM oauth_grants WHERE user_id = $1 AND revoked_at IS NULL
ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list oauth grants")
	}
	defer rows.Close()
	out := []ports.OAuthGrantRow{}
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "list oauth grants")
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "list oauth grants")
	}
	return out, nil
}

// RevokeGrant sets a grant's RevokedAt if not yet set. Not found when
// absent or another user's.
func (s oauthStore) RevokeGrant(ctx context.Context, userID, id string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $3) WHERE user_id = $1 AND id = $2`, userID, id, ms(at))
	n, err := s.affected(ctx, res, err, "revoke oauth grant")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("grant")
	}
	return nil
}

// SetGrantTrusted marks a user's grant trusted or not. Not found when
// absent or another user's.
func (s oauthStore) SetGrantTrusted(ctx context.Context, userID, id string, trusted bool) error {
	res, err := s.exec(ctx, `UPDATE oauth_grants SET trusted = $3 WHERE user_id = $1 AND id = $2`, userID, id, trusted)
	n, err := s.affected(ctx, res, err, "trust oauth grant")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("grant")
	}
	return nil
}

// TouchGrant records a use; the last-used time only moves forward.
func (s oauthStore) TouchGrant(ctx context.Context, id string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE oauth_grants SET last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < $2 THEN $2 ELSE last_used_at END
WHERE id = $1`, id, ms(at))
	n, err := s.affected(ctx, res, err, "touch oauth grant")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("grant")
	}
	return nil
}

// CreateToken inserts a token. Not found when its grant does not exist.
func (s oauthStore) CreateToken(ctx context.Context, t ports.OAuthTokenRow) error {
	scopes, err := scopesText(t.Scopes)
	if err != nil {
		return contracts.Internal(err)
	}
	_, err = s.exec(ctx, `INSERT INTO oauth_tokens (hash, kind, grant_id, scopes, created_at, expires_at, used_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, t.Hash, string(t.Kind), t.GrantID, scopes, ms(t.CreatedAt), ms(t.ExpiresAt), msPtr(t.UsedAt), msPtr(t.RevokedAt))
	return s.fail(ctx, err, "create oauth token", failMsgs{fk: "grant not found", unique: "this token already exists"})
}

// TokenByHash returns a token of the kind with its grant. Not found when absent.
func (s oauthStore) TokenByHash(ctx context.Context, kind ports.OAuthTokenKind, hash []byte) (ports.OAuthTokenRow, ports.OAuthGrantRow, error) {
	t := ports.OAuthTokenRow{Hash: hash, Kind: kind}
	var scopes string
	var created, expires int64
	var used, revoked sql.NullInt64
	g, err := scanGrant(s.q.QueryRowContext(ctx, `SELECT g.id, g.user_id, g.client_id, g.client_name, g.client_kind, g.resource, g.scopes,
g.created_at, g.last_used_at, g.revoked_at, g.trusted, t.scopes, t.created_at, t.expires_at, t.used_at, t.revoked_at
FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = $1 AND t.kind = $2`, hash, string(kind)),
		&scopes, &created, &expires, &used, &revoked)
	if errNoRows(err) {
		return t, ports.OAuthGrantRow{}, notFound("token")
	}
	if err != nil {
		return t, ports.OAuthGrantRow{}, s.s.wrap(ctx, err, "get oauth token")
	}
	if t.Scopes, err = parseScopeText(scopes); err != nil {
		return t, ports.OAuthGrantRow{}, s.s.wrap(ctx, err, "get oauth token")
	}
	t.GrantID = g.ID
	t.CreatedAt, t.ExpiresAt, t.UsedAt, t.RevokedAt = fromMs(created), fromMs(expires), fromNullMs(used), fromNullMs(revoked)
	return t, g, nil
}

// UseToken marks a token used; first is true for the one call that
// marked it. Not found when absent.
func (s oauthStore) UseToken(ctx context.Context, hash []byte, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE oauth_tokens SET used_at = $2 WHERE hash = $1 AND used_at IS NULL`, hash, ms(at))
	n, err := s.affected(ctx, res, err, "use oauth token")
	if err != nil || n == 1 {
		return n == 1, err
	}
	ok, err := s.exists(ctx, "use oauth token", `SELECT 1 FROM oauth_tokens WHERE hash = $1`, hash)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, notFound("token")
	}
	return false, nil
}

// RevokeToken sets a token's RevokedAt if not yet set. Not found when absent.
func (s oauthStore) RevokeToken(ctx context.Context, hash []byte, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE oauth_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE hash = $1`, hash, ms(at))
	n, err := s.affected(ctx, res, err, "revoke oauth token")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("token")
	}
	return nil
}

// PurgeExpired deletes codes and tokens that expired before before, a
// batch at a time.
func (s oauthStore) PurgeExpired(ctx context.Context, before time.Time) (int, error) {
	const batch = 1000
	total := 0
	for _, what := range []ports.Expiring{ports.ExpiringOAuthCodes, ports.ExpiringOAuthTokens} {
		for {
			n, err := expiryStore(s).DeleteExpired(ctx, what, before, batch)
			total += n
			if err != nil {
				return total, err
			}
			if n < batch {
				break
			}
		}
	}
	return total, nil
}
