package rest

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// GET /api/audit?cursor=&limit=&tool=&credentialId= → a page of
// contracts.AuditEvent, newest first. Web-session only (see webSession):
// it shows what every key of the account did.

type listAuditRequest struct {
	filter contracts.AuditFilter
	cursor string
	limit  int
}

func makeListAuditEndpoint(s ports.AuditService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		req := request.(listAuditRequest)
		return s.List(ctx, req.filter, req.cursor, req.limit)
	}
}

func decodeListAuditRequest(_ context.Context, r *http.Request) (any, error) {
	q := readQuery(r, "cursor", "limit", "tool", "credentialId")
	req := listAuditRequest{
		filter: contracts.AuditFilter{Tool: q.str("tool"), CredentialID: q.str("credentialId")},
		cursor: q.str("cursor"),
		limit:  q.integer("limit"),
	}
	return req, q.err
}
