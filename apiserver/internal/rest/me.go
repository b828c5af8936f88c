package rest

import (
	"context"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// GET /api/me → who is calling: the user, what authenticated them, and
// the scopes they hold. 401 without a principal.

type meResponse struct {
	User           contracts.User           `json:"user"`
	CredentialKind contracts.CredentialKind `json:"credentialKind"`
	Scopes         []contracts.Scope        `json:"scopes"`
}

func makeMeEndpoint(s ports.AccountService) endpoint.Endpoint {
	return func(ctx context.Context, _ any) (any, error) {
		p, err := principal(ctx)
		if err != nil {
			return nil, err
		}
		user, err := s.UserByID(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		scopes := p.Scopes
		if scopes == nil {
			scopes = []contracts.Scope{}
		}
		return meResponse{User: user, CredentialKind: p.CredentialKind, Scopes: scopes}, nil
	}
}
