package rest

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/go-kit/kit/endpoint"

	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
	"github.com/takhtabush/takhtabush/ports"
)

// audited wraps the endpoint of a mutation that does what the MCP tool
// named tool does, so the audit trail shows the web app's REST changes
// beside the agents': it writes the tool's audit row (its name and action,
// the arguments as the tool takes them, the ids touched as the tool's
// result names them, the outcome and error kind, the request's id; the
// web session is the credential), after the call, success or failure. As
// for agents and pages, a failed write is logged and the change stays.
// args turns the decoded request into the tool's arguments (nil: the
// request is them). A dry run ("dryRun": true) writes no row.
func audited(a ports.AuditService, log *slog.Logger, tool string, args func(request any) any, next endpoint.Endpoint) endpoint.Endpoint {
	def, ok := contracts.Tool(tool)
	if !ok {
		panic("rest: audited as unknown tool " + tool)
	}
	return func(ctx context.Context, request any) (any, error) {
		response, err := next(ctx, request)
		input := request
		if args != nil {
			input = args(request)
		}
		raw, merr := json.Marshal(input)
		if merr != nil {
			raw = json.RawMessage(`{}`)
		}
		if isDryRun(raw) { // a preview wrote nothing: no row, as on MCP
			return response, err
		}
		result := response
		if c, ok := response.(created); ok {
			result = c.body
		}
		e := contracts.AuditEvent{Tool: tool, Action: def.AuditAction, InputSummary: raw, Outcome: contracts.AuditOK,
			RequestID: obs.RequestID(ctx)}
		e.OperationID, _ = contracts.OperationIDFrom(ctx)
		if err != nil {
			result = nil
			e.Outcome, e.ErrorKind = contracts.AuditError, contracts.KindOf(err)
		}
		e.AffectedIDs = surface.AffectedIDs(result, raw)
		// The request is over: its row is written even when the client left.
		if werr := a.Record(context.WithoutCancel(ctx), e); werr != nil {
			log.ErrorContext(ctx, "REST audit write failed; the change stays applied", "tool", tool, "err", werr)
		}
		return response, err
	}
}

// isDryRun reports whether the tool's arguments ask for a dry run.
func isDryRun(args json.RawMessage) bool {
	var a struct {
		DryRun bool `json:"dryRun"`
	}
	return json.Unmarshal(args, &a) == nil && a.DryRun
}

// deckIDArgs is the arguments of a tool that takes the deck of the path.
func deckIDArgs(request any) any {
	return contracts.DeleteDeckArgs{DeckID: request.(idRequest).id}
}
