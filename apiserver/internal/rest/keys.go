package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// The key routes are web-session only (see webSession).

// GET /api/keys → {items: [contracts.APIKeyView…]}, newest first, revoked
// keys included; never a secret.

type listKeysResponse struct {
	Items []contracts.APIKeyView `json:"items"`
}

func makeListKeysEndpoint(s ports.KeyService) endpoint.Endpoint {
	return func(ctx context.Context, _ any) (any, error) {
		keys, err := s.ListKeys(ctx)
		if keys == nil {
			keys = []contracts.APIKeyView{}
		}
		return listKeysResponse{Items: keys}, err
	}
}

// POST /api/keys with {name, scopes, expiresIn} → 201 with the
// contracts.NewAPIKey: the only response that ever carries the secret.

type createKeyRequest struct {
	Name   string            `json:"name"`
	Scopes []contracts.Scope `json:"scopes"`
	// ExpiresIn is a Go duration such as "720h", as on the command line;
	// empty for a key that does not expire.
	ExpiresIn string `json:"expiresIn,omitempty"`

	expiresIn time.Duration
}

func makeCreateKeyEndpoint(s ports.KeyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		req := request.(createKeyRequest)
		key, err := s.CreateKey(ctx, req.Name, req.Scopes, req.expiresIn)
		return created{key}, err
	}
}

func decodeCreateKeyRequest(_ context.Context, r *http.Request) (any, error) {
	var req createKeyRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if req.ExpiresIn != "" {
		d, err := time.ParseDuration(req.ExpiresIn)
		if err != nil || d <= 0 {
			return nil, invalid("expiresIn must be a positive duration such as \"720h\", not %q", req.ExpiresIn)
		}
		req.expiresIn = d
	}
	return req, nil
}

// DELETE /api/keys/{id} → 204.

func makeRevokeKeyEndpoint(s ports.KeyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return noContent{}, s.RevokeKey(ctx, request.(idRequest).id)
	}
}
