package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// GET /api/decks?cursor=&limit=

func makeListDecksEndpoint(s ports.DeckService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.ListDecks(ctx, request.(contracts.ListDecksArgs))
	}
}

func decodeListDecksRequest(_ context.Context, r *http.Request) (any, error) {
	q := readQuery(r, "cursor", "limit")
	args := contracts.ListDecksArgs{Cursor: q.str("cursor"), Limit: q.integer("limit")}
	return args, q.err
}

// POST /api/decks with contracts.CreateDeckArgs → 201 with the deck.

func makeCreateDeckEndpoint(s ports.DeckService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		deck, err := s.CreateDeck(ctx, request.(contracts.CreateDeckArgs))
		return created{deck}, err
	}
}

func decodeCreateDeckRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.CreateDeckArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	return args, nil
}

// GET /api/decks/{id}

func makeGetDeckEndpoint(s ports.DeckService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.GetDeck(ctx, request.(idRequest).id)
	}
}

// PATCH /api/decks/{id} with contracts.UpdateDeckArgs: absent fields stay.

func makeUpdateDeckEndpoint(s ports.DeckService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.UpdateDeck(ctx, request.(contracts.UpdateDeckArgs))
	}
}

func decodeUpdateDeckRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.UpdateDeckArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if err := bindID(&args.DeckID, "deckId", r.PathValue("id")); err != nil {
		return nil, err
	}
	return args, nil
}

// DELETE /api/decks/{id} → the contracts.DeleteResult.

func makeDeleteDeckEndpoint(s ports.DeckService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: request.(idRequest).id})
	}
}
