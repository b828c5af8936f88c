package servers

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// MCPGo is github.com/mark3labs/mcp-go's streamable HTTP server in stateless
// mode, with tools built from prebuilt raw JSON schemas.
type MCPGo struct{}

// Name implements Server.
func (MCPGo) Name() string { return "mcp-go" }

// Description implements Server.
func (MCPGo) Description() string {
	return "mark3labs/mcp-go v1.2.1, WithStateLess, raw-schema tools"
}

// Scenarios implements Server.
func (MCPGo) Scenarios() []scenario.Scenario { return scenario.MCP() }

// Start implements Server.
func (MCPGo) Start(context.Context, Options) (*Instance, error) {
	srv := server.NewMCPServer(fixture.ServerName, fixture.ServerVersion, server.WithToolCapabilities(false))
	srv.AddTool(mcpGoTool(fixture.EchoDef), mcpGoEcho)
	srv.AddTool(mcpGoTool(fixture.ListDecksDef), mcpGoListDecks)
	h := server.NewStreamableHTTPServer(srv, server.WithStateLess(true), server.WithDisableStreaming(true))
	return &Instance{Handler: h}, nil
}

func mcpGoTool(d fixture.ToolDef) mcp.Tool {
	t := mcp.NewToolWithRawSchema(d.Name, d.Description, d.InputSchema)
	t.Title = d.Title
	t.RawOutputSchema = d.OutputSchema
	t.Annotations = mcp.ToolAnnotation{ReadOnlyHint: &d.ReadOnly, OpenWorldHint: &d.OpenWorld}
	return t
}

// mcpGoEcho reads the argument the framework has already decoded into a map,
// which is mcp-go's idiomatic and cheapest access path.
func mcpGoEcho(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	msg, err := req.RequireString("message")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(msg), nil
}

func mcpGoListDecks(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw, err := fixture.ListDecks()
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(raw, string(raw)), nil
}
