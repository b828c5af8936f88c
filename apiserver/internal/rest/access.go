package rest

import (
	"context"
	"net/http"

	kithttp "github.com/go-kit/kit/transport/http"
	"github.com/takhtabush/takhtabush/contracts"
)

// access is a route's policy: it returns nil when the principal in ctx may
// use the route, or the error that says why not.
type access func(ctx context.Context) error

// anyPrincipal admits every authenticated caller; the domain services then
// scope everything to that caller's account.
func anyPrincipal(ctx context.Context) error {
	_, err := principal(ctx)
	return err
}

// webSession admits only a principal signed in to the web app, or the
// development and local principals that stand in for one. API keys and
// OAuth tokens are refused: a key is never a login, and an agent's key
// must not get around its scopes, the account's exposure settings and the
// audit trail that /mcp applies.
func webSession(ctx context.Context) error {
	p, err := principal(ctx)
	if err != nil {
		return err
	}
	switch p.CredentialKind {
	case contracts.CredentialSession, contracts.CredentialDev, contracts.CredentialLocal:
		return nil
	}
	return contracts.Errorf(contracts.KindForbidden, "the REST API serves the web app: sign in there; agents use /mcp with their key")
}

// principal returns the principal in ctx, or an unauthenticated error.
func principal(ctx context.Context) (contracts.Principal, error) {
	p, ok := contracts.PrincipalFrom(ctx)
	if !ok {
		return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated, "sign in or present an API key")
	}
	return p, nil
}

// admit runs the route's access policy before its decoder, so a caller who
// may not use a route learns nothing more about it, not even that the
// request was malformed, and never reaches its endpoint.
func admit(policy access, decode kithttp.DecodeRequestFunc) kithttp.DecodeRequestFunc {
	return func(ctx context.Context, r *http.Request) (any, error) {
		if err := policy(ctx); err != nil {
			return nil, err
		}
		return decode(ctx, r)
	}
}
