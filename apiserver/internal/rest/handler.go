package rest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-kit/kit/endpoint"
	kithttp "github.com/go-kit/kit/transport/http"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// PathPrefix is where the handler expects to be mounted: every route it
// serves starts with it, and it answers anything else below it with a JSON
// 404 or 405. Mount it unstripped, e.g. mux.Handle(rest.PathPrefix, h).
const PathPrefix = "/api/"

// Services are the driving ports the REST API calls.
type Services struct {
	Decks    ports.DeckService
	Cards    ports.CardService
	Study    ports.StudyService
	Stats    ports.StatsService
	Keys     ports.KeyService
	Exposure ports.ExposureService
	Audit    ports.AuditService
	Accounts ports.AccountService
	Settings ports.SettingsService
}

// route is one line of the route table.
type route struct {
	method   string
	path     string // below PathPrefix
	access   access
	endpoint endpoint.Endpoint
	decode   kithttp.DecodeRequestFunc
}

// routes is the route table: every use case with its method, path, access
// policy, endpoint and decoder. A mutation that does what an MCP tool does
// writes that tool's audit row (audited). Every route but /api/me is for the web app
// alone: an agent's key works on /mcp, where its scopes, the account's
// exposure settings and the audit trail apply, never around them here.
func routes(s Services, log *slog.Logger) []route {
	// a is a mutation that does what the tool does, and writes its audit row.
	a := func(tool string, e endpoint.Endpoint) endpoint.Endpoint { return audited(s.Audit, log, tool, nil, e) }
	return []route{
		{"GET", "me", anyPrincipal, makeMeEndpoint(s.Accounts), decodeNothing},

		{"GET", "decks", webSession, makeListDecksEndpoint(s.Decks), decodeListDecksRequest},
		{"POST", "decks", webSession, a(contracts.ToolCreateDeck, makeCreateDeckEndpoint(s.Decks)), decodeCreateDeckRequest},
		{"GET", "decks/{id}", webSession, makeGetDeckEndpoint(s.Decks), decodeIDRequest},
		{"PATCH", "decks/{id}", webSession, a(contracts.ToolUpdateDeck, makeUpdateDeckEndpoint(s.Decks)), decodeUpdateDeckRequest},
		{"DELETE", "decks/{id}", webSession, audited(s.Audit, log, contracts.ToolDeleteDeck, deckIDArgs, makeDeleteDeckEndpoint(s.Decks)), decodeIDRequest},

		{"GET", "cards", webSession, makeSearchCardsEndpoint(s.Cards), decodeSearchCardsRequest},
		{"GET", "cards/{id}", webSession, makeGetCardEndpoint(s.Cards), decodeIDRequest},
		{"POST", "decks/{id}/cards", webSession, a(contracts.ToolAddCards, makeAddCardsEndpoint(s.Cards)), decodeAddCardsRequest},
		{"POST", "decks/{id}/import", webSession, a(contracts.ToolImportCards, makeImportCardsEndpoint(s.Cards)), decodeImportCardsRequest},
		{"PATCH", "cards", webSession, a(contracts.ToolUpdateCards, makeUpdateCardsEndpoint(s.Cards)), decodeUpdateCardsRequest},
		{"POST", "cards/delete", webSession, a(contracts.ToolDeleteCards, makeDeleteCardsEndpoint(s.Cards)), decodeDeleteCardsRequest},

		{"POST", "decks/{id}/study-sessions", webSession, a(contracts.ToolStartStudySession, makeStartSessionEndpoint(s.Study)), decodeStartSessionRequest},
		{"GET", "study-sessions/{id}", webSession, makeGetSessionEndpoint(s.Study), decodeIDRequest},
		{"POST", "study-sessions/{id}/reviews", webSession, a(contracts.ToolSubmitReview, makeSubmitReviewEndpoint(s.Study)), decodeSubmitReviewRequest},
		{"GET", "decks/{id}/snapshot", webSession, makeSnapshotEndpoint(s.Study), decodeIDRequest},

		{"GET", "stats", webSession, makeStatsEndpoint(s.Stats), decodeStatsRequest},
		{"GET", "plan", webSession, makePlanEndpoint(s.Stats), decodePlanRequest},

		{"GET", "keys", webSession, makeListKeysEndpoint(s.Keys), decodeNothing},
		{"POST", "keys", webSession, makeCreateKeyEndpoint(s.Keys), decodeCreateKeyRequest},
		{"DELETE", "keys/{id}", webSession, makeRevokeKeyEndpoint(s.Keys), decodeIDRequest},

		{"GET", "exposure", webSession, makeGetExposureEndpoint(s.Exposure), decodeNothing},
		{"PUT", "exposure", webSession, makeSetExposureEndpoint(s.Exposure), decodeSetExposureRequest},

		{"GET", "settings", webSession, makeGetSettingsEndpoint(s.Settings), decodeNothing},
		{"PATCH", "settings", webSession, a(contracts.ToolUpdateSettings, makeUpdateSettingsEndpoint(s.Settings)), decodeUpdateSettingsRequest},

		{"GET", "audit", webSession, makeListAuditEndpoint(s.Audit), decodeListAuditRequest},
	}
}

// NewHandler returns the REST API over s, to be mounted at PathPrefix.
// Internal errors are logged to logger with their reference id; a nil
// logger discards them.
func NewHandler(s Services, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	errorEncoder := encodeError(logger)
	mux := http.NewServeMux()
	for _, rt := range routes(s, logger) {
		mux.Handle(rt.method+" "+PathPrefix+rt.path, kithttp.NewServer(
			rt.endpoint,
			admit(rt.access, rt.decode),
			encodeResponse,
			kithttp.ServerErrorEncoder(errorEncoder),
		))
	}
	mux.Handle(PathPrefix, unrouted(mux, errorEncoder))
	return mux
}

// unrouted answers a request that matches no route: 405 with an Allow
// header when the path exists under other methods, 404 otherwise.
func unrouted(mux *http.ServeMux, errorEncoder kithttp.ErrorEncoder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			probe := r.Clone(r.Context())
			probe.Method = method
			if _, pattern := mux.Handler(probe); pattern != "" && pattern != PathPrefix {
				allow = append(allow, method)
			}
		}
		if len(allow) == 0 {
			errorEncoder(r.Context(), contracts.Errorf(contracts.KindNotFound, "no API route %s %s", r.Method, r.URL.Path), w)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		httperr.Refuse(w, httperr.JSON, httperr.MethodNotAllowed,
			fmt.Sprintf("method %s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allow, " or ")))
	})
}

// decodeNothing is the decoder of routes that take no input at all: it
// still rejects query parameters, which would otherwise be ignored silently.
func decodeNothing(_ context.Context, r *http.Request) (any, error) {
	return struct{}{}, readQuery(r).err
}
