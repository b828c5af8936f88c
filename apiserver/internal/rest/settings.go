package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// The settings routes are web-session only (see webSession); agents use
// get_settings and update_settings on /mcp.

// GET /api/settings → the contracts.AccountSettings, with today's date
// and bounds in the learner's day.

func makeGetSettingsEndpoint(s ports.SettingsService) endpoint.Endpoint {
	return func(ctx context.Context, _ any) (any, error) {
		return s.Settings(ctx)
	}
}

// PATCH /api/settings with any of {timezone, rolloverHour,
// learnAheadMinutes, newCardsPerDay, reviewsPerDay} → the settings now in
// force. 400 with the reason for an unknown timezone or a value out of range.

func makeUpdateSettingsEndpoint(s ports.SettingsService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.UpdateSettings(ctx, request.(contracts.UpdateSettingsArgs))
	}
}

func decodeUpdateSettingsRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.UpdateSettingsArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	return args, nil
}
