package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// GET /api/cards?q=&deckId=&tag=&tag=&state=&dueBefore=&cursor=&limit=
// (tag repeats; every tag given must be on the card).

func makeSearchCardsEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.SearchCards(ctx, request.(contracts.SearchCardsArgs))
	}
}

func decodeSearchCardsRequest(_ context.Context, r *http.Request) (any, error) {
	q := readQuery(r, "q", "deckId", "tag", "state", "dueBefore", "cursor", "limit")
	args := contracts.SearchCardsArgs{
		Query:     q.str("q"),
		DeckID:    q.str("deckId"),
		Tags:      q.all("tag"),
		State:     q.str("state"),
		DueBefore: q.dateOrTime("dueBefore"),
		Cursor:    q.str("cursor"),
		Limit:     q.integer("limit"),
	}
	return args, q.err
}

// GET /api/cards/{id}

func makeGetCardEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.GetCard(ctx, request.(idRequest).id)
	}
}

// POST /api/decks/{id}/cards with {cards, idempotencyKey} → the
// contracts.BulkResult, one outcome per card.

func makeAddCardsEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.AddCards(ctx, request.(contracts.AddCardsArgs))
	}
}

func decodeAddCardsRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.AddCardsArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if err := bindID(&args.DeckID, "deckId", r.PathValue("id")); err != nil {
		return nil, err
	}
	return args, nil
}

// POST /api/decks/{id}/import with {text, format, idempotencyKey} → the
// contracts.BulkResult.

func makeImportCardsEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.ImportCards(ctx, request.(contracts.ImportCardsArgs))
	}
}

func decodeImportCardsRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.ImportCardsArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if err := bindID(&args.DeckID, "deckId", r.PathValue("id")); err != nil {
		return nil, err
	}
	return args, nil
}

// PATCH /api/cards with {updates: [contracts.CardPatch…]} → the
// contracts.BulkResult.

func makeUpdateCardsEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.UpdateCards(ctx, request.(contracts.UpdateCardsArgs))
	}
}

func decodeUpdateCardsRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.UpdateCardsArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	return args, nil
}

// POST /api/cards/delete with {cardIds} → the contracts.BulkResult. A POST,
// not a DELETE with a body, which intermediaries may drop.

func makeDeleteCardsEndpoint(s ports.CardService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		return s.DeleteCards(ctx, request.(contracts.DeleteCardsArgs))
	}
}

func decodeDeleteCardsRequest(_ context.Context, r *http.Request) (any, error) {
	var args contracts.DeleteCardsArgs
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	return args, nil
}
