package servers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// Floor is the baseline: the minimum a hand-written JSON-RPC server does with
// net/http and encoding/json. It decodes the envelope into a struct, switches
// on the method and encodes a response, with no MCP framework and none of the
// header, session or schema checks a real engine performs.
type Floor struct{}

// Name implements Server.
func (Floor) Name() string { return "floor" }

// Description implements Server.
func (Floor) Description() string { return "net/http + encoding/json, no framework" }

// Scenarios implements Server.
func (Floor) Scenarios() []scenario.Scenario { return scenario.MCP() }

// Start implements Server.
func (Floor) Start(context.Context, Options) (*Instance, error) {
	return &Instance{Handler: http.HandlerFunc(serveFloor)}, nil
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type floorTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  floorAnnotation `json:"annotations"`
}

type floorAnnotation struct {
	ReadOnlyHint  bool `json:"readOnlyHint"`
	OpenWorldHint bool `json:"openWorldHint"`
}

type floorContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorToolResult struct {
	Content           []floorContent  `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type floorCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

var floorTools = func() []floorTool {
	var out []floorTool
	for _, d := range fixture.Tools() {
		out = append(out, floorTool{
			Name: d.Name, Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
			Annotations: floorAnnotation{ReadOnlyHint: d.ReadOnly, OpenWorldHint: d.OpenWorld},
		})
	}
	return out
}()

func serveFloor(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req floorRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeFloor(w, http.StatusBadRequest, floorResponse{Error: &floorError{-32700, "parse error"}})
		return
	}
	if req.ID == nil { // a notification, such as notifications/initialized
		w.WriteHeader(http.StatusAccepted)
		return
	}
	resp := floorResponse{ID: req.ID}
	switch req.Method {
	case "initialize":
		resp.Result = map[string]any{
			"protocolVersion": scenario.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]string{"name": fixture.ServerName, "version": fixture.ServerVersion},
		}
	case "tools/list":
		resp.Result = struct {
			Tools []floorTool `json:"tools"`
		}{floorTools}
	case "tools/call":
		resp.Result, resp.Error = floorCall(req.Params)
	default:
		resp.Error = &floorError{-32601, "method not found"}
	}
	writeFloor(w, http.StatusOK, resp)
}

func floorCall(params json.RawMessage) (any, *floorError) {
	var p floorCallParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &floorError{-32602, "invalid params"}
	}
	switch p.Name {
	case fixture.EchoTool:
		msg, err := fixture.Echo(p.Arguments)
		if err != nil {
			return floorToolResult{Content: []floorContent{{"text", err.Error()}}, IsError: true}, nil
		}
		return floorToolResult{Content: []floorContent{{"text", msg}}}, nil
	case fixture.ListDecksTool:
		raw, err := fixture.ListDecks()
		if err != nil {
			return nil, &floorError{-32603, err.Error()}
		}
		return floorToolResult{Content: []floorContent{{"text", string(raw)}}, StructuredContent: raw}, nil
	}
	return nil, &floorError{-32602, "unknown tool " + p.Name}
}

func writeFloor(w http.ResponseWriter, status int, resp floorResponse) {
	resp.JSONRPC = "2.0"
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
