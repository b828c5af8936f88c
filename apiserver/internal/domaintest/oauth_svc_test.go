package domain_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/ports"
)

// oauthEnv is the authorization server on a real store with the test clock.
func oauthEnv(e *env) *identity.OAuthService {
	res := map[string]string{baseURL + "/mcp": baseURL + "/mcp", baseURL + "/mcp/oauth": baseURL + "/mcp"}
	return identity.NewOAuthService(e.store, e.clock, domain.RandomIDs{}, nil, identity.OAuthConfig{
		Issuer: baseURL, Resources: res, DefaultResource: baseURL + "/mcp",
	})
}

const verifier = "the-verifier-of-this-test-is-long-enough-0123456789"

func challenge() string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// codeFor registers a client and has the person approve it.
func codeFor(t *testing.T, o *identity.OAuthService, ctx context.Context) (clientID, code string) {
	t.Helper()
	c, err := o.Register(context.Background(), contracts.OAuthRegistration{RedirectURIs: []string{"https://app.example/cb"}, ClientName: "App"})
	if err != nil {
		t.Fatal(err)
	}
	req := contracts.OAuthAuthorizeRequest{ResponseType: "code", ClientID: c.ID, RedirectURI: "https://app.example/cb", State: "s",
		CodeChallenge: challenge(), CodeChallengeMethod: "S256", Scope: "decks:read decks:write"}
	target, err := o.Decide(ctx, req, true, []contracts.Scope{contracts.ScopeDecksRead})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(target)
	if u.Query().Get("iss") != baseURL || u.Query().Get("state") != "s" {
		t.Fatalf("redirect %s", target)
	}
	return c.ID, u.Query().Get("code")
}

// The authorization server on both stores: a grant carries what was
// granted, API keys and OAuth tokens cannot manage grants, another
// person cannot revoke it, and expired codes and tokens are purged after
// a day's grace.
func TestOAuthService(t *testing.T) {
	eachStore(t, func(t *testing.T, kind string) {
		e := newEnv(t, kind)
		o := oauthEnv(e)
		ada := e.user("ada@example.com")
		bob := e.user("bob@example.com")
		clientID, code := codeFor(t, o, ada)

		// Only a signed-in person decides.
		p, _ := contracts.PrincipalFrom(ada)
		for _, k := range []contracts.CredentialKind{contracts.CredentialAPIKey, contracts.CredentialOAuth} {
			_, err := o.Decide(as(p.UserID, k), contracts.OAuthAuthorizeRequest{ClientID: clientID}, true, nil)
			wantKind(t, err, contracts.KindForbidden)
			_, err = o.ListGrants(as(p.UserID, k))
			wantKind(t, err, contracts.KindForbidden)
		}

		tok, err := o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: "authorization_code", ClientID: clientID, Code: code,
			RedirectURI: "https://app.example/cb", CodeVerifier: verifier})
		if err != nil {
			t.Fatal(err)
		}
		if tok.Scope != "decks:read" || !strings.HasPrefix(tok.AccessToken, contracts.OAuthAccessPrefix) {
			t.Fatalf("tokens %+v", tok)
		}
		pr, err := o.Authenticate(context.Background(), tok.AccessToken, baseURL+"/mcp/oauth")
		if err != nil || pr.UserID != p.UserID || pr.CredentialKind != contracts.CredentialOAuth || pr.CredentialID != clientID ||
			len(pr.Scopes) != 1 || pr.Scopes[0] != contracts.ScopeDecksRead {
			t.Fatalf("principal %+v, %v", pr, err)
		}
		grants, err := o.ListGrants(ada)
		if err != nil || len(grants) != 1 || grants[0].ClientName != "App" {
			t.Fatalf("grants %+v %v", grants, err)
		}
		wantKind(t, o.RevokeGrant(bob, grants[0].ID), contracts.KindNotFound)
		if _, err := o.Authenticate(context.Background(), tok.AccessToken, baseURL+"/mcp"); err != nil {
			t.Fatalf("another person's revocation stopped the token: %v", err)
		}

		// Purge: nothing within the grace; the expired code and access token after it.
		if n, err := o.PurgeExpired(context.Background()); err != nil || n != 0 {
			t.Fatalf("purge now: %d %v", n, err)
		}
		e.clock.Advance(2 * time.Hour)
		if n, _ := o.PurgeExpired(context.Background()); n != 0 {
			t.Errorf("purged %d rows within the day's grace", n)
		}
		e.clock.Advance(25 * time.Hour)
		if n, err := o.PurgeExpired(context.Background()); err != nil || n != 2 {
			t.Errorf("purge after a day: %d %v, want the code and the access token", n, err)
		}
		// The refresh token (30 days) still works.
		if _, err := o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: "refresh_token", ClientID: clientID, RefreshToken: tok.RefreshToken}); err != nil {
			t.Errorf("refresh after the purge: %v", err)
		}
	})
}

// TestOAuthTokenUnknownClient: the token endpoint's service answers a
// client_id registered nowhere, or one removed (the unused-client purge),
// unauthenticated with invalid_client for every grant type, before the
// code it presents is spent.
func TestOAuthTokenUnknownClient(t *testing.T) {
	eachStore(t, func(t *testing.T, kind string) {
		e := newEnv(t, kind)
		o := oauthEnv(e)
		ada := e.user("ada@example.com")
		clientID, code := codeFor(t, o, ada)
		unknownClient := func(what string, err error) {
			t.Helper()
			if !contracts.IsKind(err, contracts.KindUnauthenticated) || contracts.OAuthCodeOf(err) != contracts.OAuthInvalidClient ||
				!strings.Contains(contracts.MessageOf(err), "register") {
				t.Errorf("%s: %v (kind %s, code %s); want unauthenticated invalid_client saying to register again", what, err, contracts.KindOf(err), contracts.OAuthCodeOf(err))
			}
		}
		for _, id := range []string{"tbc_nobody", "x y", "https://app.example/"} {
			for _, grant := range []string{"authorization_code", "refresh_token", "password"} {
				_, err := o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: grant, ClientID: id, Code: code,
					RedirectURI: "https://app.example/cb", CodeVerifier: verifier, RefreshToken: contracts.OAuthRefreshPrefix + "nope"})
				if id == "https://app.example/" {
					// A metadata document URL is not looked up here, only checked.
					if contracts.OAuthCodeOf(err) != contracts.OAuthInvalidClient {
						t.Errorf("client %q, %s: %v; want invalid_client", id, grant, err)
					}
					continue
				}
				unknownClient("client "+id+", "+grant, err)
			}
		}
		// The code was not spent by those attempts.
		tok, err := o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: "authorization_code", ClientID: clientID, Code: code,
			RedirectURI: "https://app.example/cb", CodeVerifier: verifier})
		if err != nil {
			t.Fatalf("the client's own exchange after unknown clients tried its code: %v", err)
		}
		// A client removed by the purge of unused registrations.
		removed, err := o.Register(context.Background(), contracts.OAuthRegistration{RedirectURIs: []string{"https://app.example/cb"}, ClientName: "Gone"})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := e.store.Expiry().DeleteExpired(context.Background(), ports.ExpiringOAuthClients, e.clock.Now().Add(time.Second), 100); err != nil || n != 1 {
			t.Fatalf("purging the unused client: %d, %v; want 1", n, err)
		}
		_, err = o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: "refresh_token", ClientID: removed.ID, RefreshToken: tok.RefreshToken})
		unknownClient("a removed client", err)
		// The used client stays and refreshes.
		if _, err := o.Token(context.Background(), contracts.OAuthTokenRequest{GrantType: "refresh_token", ClientID: clientID, RefreshToken: tok.RefreshToken}); err != nil {
			t.Errorf("the used client's refresh after the purge: %v", err)
		}
	})
}
