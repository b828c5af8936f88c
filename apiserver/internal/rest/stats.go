package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// GET /api/stats?deckId=&days= (no deckId: the whole account).

func makeStatsEndpoint(s ports.StatsService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.Stats(ctx, request.(contracts.GetStatsArgs))
	}
}

func decodeStatsRequest(_ context.Context, r *http.Request) (any, error) {
	q := readQuery(r, "deckId", "days")
	args := contracts.GetStatsArgs{DeckID: q.str("deckId"), Days: q.integer("days")}
	return args, q.err
}

// GET /api/plan?deckId=&days=&minutesPerDay=

func makePlanEndpoint(s ports.StatsService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.Plan(ctx, request.(contracts.GetStudyPlanArgs))
	}
}

func decodePlanRequest(_ context.Context, r *http.Request) (any, error) {
	q := readQuery(r, "deckId", "days", "minutesPerDay")
	args := contracts.GetStudyPlanArgs{
		DeckID:        q.str("deckId"),
		Days:          q.integer("days"),
		MinutesPerDay: q.number("minutesPerDay"),
	}
	return args, q.err
}
