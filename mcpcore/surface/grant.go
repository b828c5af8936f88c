package surface

import (
	"context"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// withGrant narrows the services' principal in ctx to the scopes the MCP
// engine granted this request: a client may narrow its credential's grant
// for a request (the x-mcp-scopes header), and the services' own scope
// checks (which jobs and tasks a caller may start, read or cancel) must
// see that narrower grant, as the engine's tool checks do. Without an MCP
// principal, or when nothing was narrowed, ctx is returned as it is.
func withGrant(ctx context.Context) context.Context {
	mp, ok := mcpcore.PrincipalFrom(ctx)
	if !ok {
		return ctx
	}
	p, ok := contracts.PrincipalFrom(ctx)
	if !ok {
		return ctx
	}
	kept := make([]contracts.Scope, 0, len(p.Scopes))
	for _, s := range p.Scopes {
		if slices.Contains(mp.Scopes, string(s)) {
			kept = append(kept, s)
		}
	}
	if len(kept) == len(p.Scopes) {
		return ctx
	}
	p.Scopes = kept
	return contracts.WithPrincipal(ctx, p)
}
