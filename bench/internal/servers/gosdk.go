package servers

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// GoSDK is the official github.com/modelcontextprotocol/go-sdk server in
// stateless mode with JSON responses. Tools are registered through the raw
// Server.AddTool API with prebuilt JSON schemas, so the SDK neither infers
// nor validates schemas per call, matching what the other servers do.
type GoSDK struct{}

// Name implements Server.
func (GoSDK) Name() string { return "go-sdk" }

// Description implements Server.
func (GoSDK) Description() string {
	return "modelcontextprotocol/go-sdk v1.8.0, Stateless+JSONResponse, raw AddTool"
}

// Scenarios implements Server.
func (GoSDK) Scenarios() []scenario.Scenario { return scenario.MCP() }

// Start implements Server.
func (GoSDK) Start(context.Context, Options) (*Instance, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: fixture.ServerName, Version: fixture.ServerVersion}, nil)
	srv.AddTool(goSDKTool(fixture.EchoDef), goSDKEcho)
	srv.AddTool(goSDKTool(fixture.ListDecksDef), goSDKListDecks)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return &Instance{Handler: h}, nil
}

func goSDKTool(d fixture.ToolDef) *mcp.Tool {
	t := &mcp.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: d.InputSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: d.ReadOnly, OpenWorldHint: &d.OpenWorld},
	}
	if d.OutputSchema != nil {
		t.OutputSchema = d.OutputSchema
	}
	return t
}

func goSDKEcho(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	msg, err := fixture.Echo(req.Params.Arguments)
	if err != nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, IsError: true}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
}

func goSDKListDecks(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw, err := fixture.ListDecks()
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: raw,
	}, nil
}
