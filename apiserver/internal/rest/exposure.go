package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// The exposure routes are web-session only (see webSession).

// GET /api/exposure → the contracts.ExposureSettings.

func makeGetExposureEndpoint(s ports.ExposureService) endpoint.Endpoint {
	return func(ctx context.Context, _ any) (any, error) {
		settings, err := s.Exposure(ctx)
		return withTools(settings), err
	}
}

// PUT /api/exposure with {readOnly, disabledTools} → the settings now in force.

func makeSetExposureEndpoint(s ports.ExposureService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		settings, err := s.SetExposure(ctx, request.(contracts.ExposureSettings))
		return withTools(settings), err
	}
}

func decodeSetExposureRequest(_ context.Context, r *http.Request) (any, error) {
	var settings contracts.ExposureSettings
	if err := decodeBody(r, &settings); err != nil {
		return nil, err
	}
	return settings, nil
}

// withTools makes an empty tool list encode as [] rather than null.
func withTools(s contracts.ExposureSettings) contracts.ExposureSettings {
	if s.DisabledTools == nil {
		s.DisabledTools = []string{}
	}
	return s
}
