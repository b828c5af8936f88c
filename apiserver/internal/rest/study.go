package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// POST /api/decks/{id}/study-sessions with optional {newLimit, reviewLimit}
// → 201 with the contracts.StudySession and its first card.

func makeStartSessionEndpoint(s ports.StudyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		session, err := s.StartSession(ctx, request.(contracts.StartStudySessionArgs))
		return created{session}, err
	}
}

func decodeStartSessionRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.StartStudySessionArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if err := bindID(&args.DeckID, "deckId", r.PathValue("id")); err != nil {
		return nil, err
	}
	return args, nil
}

// GET /api/study-sessions/{id}

func makeGetSessionEndpoint(s ports.StudyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.GetSession(ctx, request.(idRequest).id)
	}
}

// POST /api/study-sessions/{id}/reviews with {cardId, rating, durationMs}
// → the contracts.ReviewResult with the next card.

func makeSubmitReviewEndpoint(s ports.StudyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.SubmitReview(ctx, request.(contracts.SubmitReviewArgs))
	}
}

func decodeSubmitReviewRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.SubmitReviewArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if err := bindID(&args.SessionID, "sessionId", r.PathValue("id")); err != nil {
		return nil, err
	}
	return args, nil
}

// GET /api/decks/{id}/snapshot → the contracts.StudySnapshot.

func makeSnapshotEndpoint(s ports.StudyService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.Snapshot(ctx, request.(idRequest).id)
	}
}
