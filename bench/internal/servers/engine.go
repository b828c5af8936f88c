package servers

import (
	"context"

	"github.com/takhtabush/takhtabush/mcpcore"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// Engine is our own engine, github.com/takhtabush/takhtabush/mcpcore, served
// by its stateless Streamable HTTP handler with default options. Unlike the
// raw-handler peers it validates tool arguments against the input schema on
// every call, as it always does.
type Engine struct{}

// Name implements Server.
func (Engine) Name() string { return "engine" }

// Description implements Server.
func (Engine) Description() string {
	return "takhtabush mcpcore, NewHTTPHandler with default options (input schema validation on)"
}

// Scenarios implements Server.
func (Engine) Scenarios() []scenario.Scenario { return scenario.MCP() }

// Start implements Server.
func (Engine) Start(context.Context, Options) (*Instance, error) {
	srv, err := mcpcore.NewServer(
		mcpcore.Implementation{Name: fixture.ServerName, Version: fixture.ServerVersion},
		mcpcore.Options{},
		mcpcore.Catalog{Tools: []mcpcore.Tool{
			engineTool(fixture.EchoDef, engineEcho),
			engineTool(fixture.ListDecksDef, engineListDecks),
		}},
	)
	if err != nil {
		return nil, err
	}
	return &Instance{Handler: mcpcore.NewHTTPHandler(srv, mcpcore.HTTPOptions{})}, nil
}

func engineTool(d fixture.ToolDef, h mcpcore.ToolHandler) mcpcore.Tool {
	return mcpcore.Tool{
		Name:         d.Name,
		Title:        d.Title,
		Description:  d.Description,
		InputSchema:  d.InputSchema,
		OutputSchema: d.OutputSchema,
		Annotations:  &mcpcore.ToolAnnotations{ReadOnlyHint: new(d.ReadOnly), OpenWorldHint: new(d.OpenWorld)},
		Handler:      h,
	}
}

func engineEcho(_ context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
	msg, err := fixture.Echo(req.Arguments)
	if err != nil {
		return mcpcore.ErrorResult(err.Error()), nil
	}
	return mcpcore.TextResult(msg), nil
}

func engineListDecks(context.Context, *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
	raw, err := fixture.ListDecks()
	if err != nil {
		return nil, err
	}
	return &mcpcore.CallToolResult{
		Content:           []mcpcore.Content{mcpcore.TextContent(string(raw))},
		StructuredContent: raw,
	}, nil
}
