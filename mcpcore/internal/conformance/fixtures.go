// Package conformance registers the fixture tools, resources and prompts the
// official MCP conformance suite (@modelcontextprotocol/conformance) calls,
// on top of the mcpcore engine. It is a test profile: never serve it in
// production.
package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/mcpcore"
)

// 1×1 red PNG and a minimal WAV file.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

var (
	pngBytes = mustDecode(pngBase64)
	wavBytes = mustDecode(wavBase64)
)

// NewServer returns the conformance fixture server. Without opts.Tasks it
// keeps tasks in memory. Its tools are in toolsets, so the suite runs
// through the engine's filtering: every fixture tool is in SuiteSet, the
// default, and OutsideTool only in ExtraSet, which no request of the
// suite chooses, so it is never listed and calling it is unknown.
func NewServer(opts mcpcore.Options) (*mcpcore.Server, error) {
	if opts.Tasks == nil {
		opts.Tasks = mcpcore.NewMemoryTaskStore(0, 0)
	}
	if opts.Toolsets == nil {
		opts.Toolsets = []mcpcore.Toolset{{Name: SuiteSet}, {Name: ExtraSet}}
		opts.DefaultToolsets = func(context.Context) ([]string, error) { return []string{SuiteSet}, nil }
	}
	return mcpcore.NewServer(mcpcore.Implementation{Name: "mcpcore-conformance", Version: "1.0.0"}, opts, Catalog())
}

// The fixture's toolsets and the one tool outside the default.
const (
	SuiteSet    = "suite"
	ExtraSet    = "extra"
	OutsideTool = "test_outside_default_set"
)

func text(s string) mcpcore.ToolHandler {
	return func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
		return mcpcore.TextResult(s), nil
	}
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

const noArgs = `{"type":"object","properties":{}}`

// Catalog is the fixture set.
func Catalog() mcpcore.Catalog {
	all := append(tools(), taskTools()...)
	for i := range all {
		all[i].Sets = []string{SuiteSet}
	}
	all = append(all, mcpcore.Tool{Name: OutsideTool, Description: "Only in the extra toolset", InputSchema: schema(noArgs),
		Sets: []string{ExtraSet}, Handler: text("outside the default set")})
	return mcpcore.Catalog{
		Tools:             all,
		Resources:         resources(),
		ResourceTemplates: templates(),
		Prompts:           prompts(),
	}
}

func tools() []mcpcore.Tool {
	elicitUser := func(message string) mcpcore.ElicitParams {
		return mcpcore.ElicitParams{
			Message: message,
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"username": map[string]any{"type": "string", "description": "User's response"},
					"email":    map[string]any{"type": "string", "description": "User's email address"},
				},
				"required": []string{"username", "email"},
			},
		}
	}
	nameSchema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
	return []mcpcore.Tool{
		{Name: "test_simple_text", Description: "Returns a simple text response", InputSchema: schema(noArgs),
			Handler: text("This is a simple text response for testing.")},
		{Name: "test_image_content", Description: "Returns an image", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return &mcpcore.CallToolResult{Content: []mcpcore.Content{mcpcore.ImageContent(pngBytes, "image/png")}}, nil
			}},
		{Name: "test_audio_content", Description: "Returns audio", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return &mcpcore.CallToolResult{Content: []mcpcore.Content{mcpcore.AudioContent(wavBytes, "audio/wav")}}, nil
			}},
		{Name: "test_embedded_resource", Description: "Returns an embedded resource", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return &mcpcore.CallToolResult{Content: []mcpcore.Content{mcpcore.EmbeddedResource(mcpcore.ResourceContents{
					URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}}, nil
			}},
		{Name: "test_multiple_content_types", Description: "Returns text, image and resource content", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return &mcpcore.CallToolResult{Content: []mcpcore.Content{
					mcpcore.TextContent("Multiple content types test:"),
					mcpcore.ImageContent(pngBytes, "image/png"),
					mcpcore.EmbeddedResource(mcpcore.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
				}}, nil
			}},
		{Name: "test_error_handling", Description: "Always fails", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return nil, fmt.Errorf("This tool intentionally returns an error for testing")
			}},
		{Name: "test_tool_with_progress", Description: "Reports progress 0, 50, 100 of 100", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				for i, p := range []float64{0, 50, 100} {
					if i > 0 {
						if err := sleep(ctx, 50*time.Millisecond); err != nil {
							return nil, err
						}
					}
					if err := req.Progress(ctx, p, 100, fmt.Sprintf("Completed step %v of 100", p)); err != nil {
						return nil, err
					}
				}
				return mcpcore.TextResult("Progress test completed"), nil
			}},
		{Name: "test_tool_with_logging", Description: "Sends three info log messages", InputSchema: schema(noArgs), Handler: logThree(50 * time.Millisecond)},
		{Name: "test_logging_tool", Description: "Sends log messages only when the request asked for them", InputSchema: schema(noArgs), Handler: logThree(0)},
		{Name: "test_sampling", Description: "Asks the client's model for a completion",
			InputSchema: schema(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct{ Prompt string }
				json.Unmarshal(req.Arguments, &a)
				res, err := req.Sample(ctx, "sampling", samplingParams(a.Prompt, 100))
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult("LLM response: " + samplingText(res)), nil
			}},
		{Name: "test_elicitation", Description: "Asks the user for a username and email",
			InputSchema: schema(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				var a struct{ Message string }
				json.Unmarshal(req.Arguments, &a)
				res, err := req.Elicit(ctx, "user_info", elicitUser(a.Message))
				if err != nil {
					return nil, err
				}
				return elicitText("User response", res), nil
			}},
		{Name: "test_elicitation_sep1034_defaults", Description: "Elicitation with defaults for every primitive type", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Elicit(ctx, "defaults", mcpcore.ElicitParams{
					Message: "Please review and update the form fields with defaults",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
						"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
						"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
						"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
						"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
						"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
					}},
				})
				if err != nil {
					return nil, err
				}
				return elicitText("Elicitation completed", res), nil
			}},
		{Name: "test_elicitation_sep1330_enums", Description: "Elicitation with all enum schema variants", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				titled := func(prefix string, names ...string) []map[string]any {
					var out []map[string]any
					for i, n := range names {
						out = append(out, map[string]any{"const": fmt.Sprintf("value%d", i+1), "title": n + " " + prefix})
					}
					return out
				}
				res, err := req.Elicit(ctx, "enums", mcpcore.ElicitParams{
					Message: "Please select options from the enum fields",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
						"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
						"titledSingle":   map[string]any{"type": "string", "description": "Select one option with titles", "oneOf": titled("Option", "First", "Second", "Third")},
						"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)", "enum": []string{"opt1", "opt2", "opt3"},
							"enumNames": []string{"Option One", "Option Two", "Option Three"}},
						"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
							"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
						"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
							"items": map[string]any{"anyOf": titled("Choice", "First", "Second", "Third")}},
					}},
				})
				if err != nil {
					return nil, err
				}
				return elicitText("Elicitation completed", res), nil
			}},
		{Name: "test_missing_capability", Description: "Needs the client's sampling capability", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Sample(ctx, "sampling", samplingParams("ping", 10))
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult("LLM response: " + samplingText(res)), nil
			}},
		{Name: "test_streaming_elicitation", Description: "Asks for input (input_required in the modern era)", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Elicit(ctx, "user_name", mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
				if err != nil {
					return nil, err
				}
				return elicitText("Elicitation completed", res), nil
			}},
		{Name: "test_input_required_result_elicitation", Description: "MRTR: one elicitation", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Elicit(ctx, "user_name", mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
				if err != nil {
					return nil, err
				}
				name, _ := res.Content["name"].(string)
				return mcpcore.TextResult("Hello, " + name + "!"), nil
			}},
		{Name: "test_input_required_result_sampling", Description: "MRTR: one sampling request", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Sample(ctx, "capital_question", samplingParams("What is the capital of France?", 100))
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult("LLM response: " + samplingText(res)), nil
			}},
		{Name: "test_input_required_result_list_roots", Description: "MRTR: one roots/list request", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.ListRoots(ctx, "client_roots")
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult("Roots: " + string(res)), nil
			}},
		{Name: "test_input_required_result_request_state", Description: "MRTR: requestState round trip", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				_, err := req.Ask(ctx, map[string]mcpcore.InputRequest{"confirm": confirmRequest()}, []byte("state-ok"))
				if err != nil {
					return nil, err
				}
				if string(req.State()) != "state-ok" {
					return mcpcore.ErrorResult("requestState was not round-tripped"), nil
				}
				return mcpcore.TextResult("state-ok: requestState verified"), nil
			}},
		{Name: "test_input_required_result_multiple_inputs", Description: "MRTR: elicitation, sampling and roots at once", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				res, err := req.Ask(ctx, map[string]mcpcore.InputRequest{
					"user_name":    mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema}),
					"greeting":     mcpcore.SamplingRequest(samplingParams("Generate a greeting", 50)),
					"client_roots": mcpcore.RootsRequest(),
				}, []byte("multiple"))
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult(fmt.Sprintf("Received %d input responses", len(res))), nil
			}},
		{Name: "test_input_required_result_multi_round", Description: "MRTR: two rounds with evolving state", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				step1 := mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: nameSchema})
				step2 := mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "Step 2: What is your favorite color?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"color": map[string]any{"type": "string"}}, "required": []string{"color"}}})
				if string(req.State()) != "round-2" {
					if _, err := req.Ask(ctx, map[string]mcpcore.InputRequest{"step1": step1}, []byte("round-1")); err != nil {
						return nil, err
					}
					return nil, &mcpcore.InputRequiredError{Requests: map[string]mcpcore.InputRequest{"step2": step2}, State: []byte("round-2")}
				}
				if _, err := req.Ask(ctx, map[string]mcpcore.InputRequest{"step2": step2}, []byte("round-2")); err != nil {
					return nil, err
				}
				return mcpcore.TextResult("Multi-round flow completed"), nil
			}},
		{Name: "test_input_required_result_tampered_state", Description: "MRTR: integrity-protected requestState", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				if _, err := req.Ask(ctx, map[string]mcpcore.InputRequest{"confirm": confirmRequest()}, []byte("tamper-check")); err != nil {
					return nil, err
				}
				return mcpcore.TextResult("state verified"), nil
			}},
		{Name: "test_input_required_result_capabilities", Description: "MRTR: asks only for declared client capabilities", InputSchema: schema(noArgs),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				asks := map[string]mcpcore.InputRequest{}
				if ok, _ := req.HasClientCapability("sampling"); ok {
					asks["greeting"] = mcpcore.SamplingRequest(samplingParams("Generate a greeting", 50))
				}
				if ok, _ := req.HasClientCapability("elicitation"); ok {
					asks["user_name"] = mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
				}
				if ok, _ := req.HasClientCapability("roots"); ok {
					asks["client_roots"] = mcpcore.RootsRequest()
				}
				if len(asks) == 0 {
					return mcpcore.TextResult("The client declared no capability to ask with"), nil
				}
				res, err := req.Ask(ctx, asks, nil)
				if err != nil {
					return nil, err
				}
				return mcpcore.TextResult(fmt.Sprintf("Received %d input responses", len(res))), nil
			}},
		{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: schema(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`),
			Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
				return mcpcore.TextResult("JSON Schema 2020-12 tool called with: " + string(req.Arguments)), nil
			}},
	}
}

func confirmRequest() mcpcore.InputRequest {
	return mcpcore.ElicitationRequest(mcpcore.ElicitParams{Message: "Please confirm",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}})
}

func logThree(delay time.Duration) mcpcore.ToolHandler {
	return func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
		for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 && delay > 0 {
				if err := sleep(ctx, delay); err != nil {
					return nil, err
				}
			}
			if err := req.Log(ctx, "info", "conformance", m); err != nil {
				return nil, err
			}
		}
		return mcpcore.TextResult("Tool with logging executed successfully"), nil
	}
}

func samplingParams(prompt string, maxTokens int) map[string]any {
	return map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": maxTokens,
	}
}

func samplingText(res json.RawMessage) string {
	var r struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(res, &r)
	return r.Content.Text
}

func elicitText(prefix string, res *mcpcore.ElicitResult) *mcpcore.CallToolResult {
	c, _ := json.Marshal(res.Content)
	if res.Content == nil {
		c = []byte("{}")
	}
	return mcpcore.TextResult(fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, c))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func static(uri, mime, text string, blob []byte) mcpcore.ResourceHandler {
	return func(ctx context.Context, req *mcpcore.ReadRequest) ([]mcpcore.ResourceContents, error) {
		return []mcpcore.ResourceContents{{URI: uri, MIMEType: mime, Text: text, Blob: blob}}, nil
	}
}

func resources() []mcpcore.Resource {
	return []mcpcore.Resource{
		{URI: "test://static-text", Name: "static-text", Title: "Static Text Resource", Description: "A static text resource for testing", MIMEType: "text/plain",
			Read: static("test://static-text", "text/plain", "This is the content of the static text resource.", nil)},
		{URI: "test://static-binary", Name: "static-binary", Title: "Static Binary Resource", Description: "A static binary resource (image) for testing", MIMEType: "image/png",
			Read: static("test://static-binary", "image/png", "", pngBytes)},
		{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched Resource", Description: "A resource clients may subscribe to", MIMEType: "text/plain",
			Read: static("test://watched-resource", "text/plain", "Watched resource content", nil)},
	}
}

func templates() []mcpcore.ResourceTemplate {
	return []mcpcore.ResourceTemplate{{
		URITemplate: "test://template/{id}/data", Name: "template", Title: "Resource Template",
		Description: "A resource template with parameter substitution", MIMEType: "application/json",
		Read: func(ctx context.Context, req *mcpcore.ReadRequest) ([]mcpcore.ResourceContents, error) {
			id := req.Vars["id"]
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return []mcpcore.ResourceContents{{URI: req.URI, MIMEType: "application/json", Text: string(b)}}, nil
		},
	}}
}

func userMsg(c mcpcore.Content) mcpcore.PromptMessage {
	return mcpcore.PromptMessage{Role: "user", Content: c}
}

func prompts() []mcpcore.Prompt {
	return []mcpcore.Prompt{
		{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments",
			Get: func(ctx context.Context, req *mcpcore.GetPromptRequest) (*mcpcore.GetPromptResult, error) {
				return &mcpcore.GetPromptResult{Messages: []mcpcore.PromptMessage{userMsg(mcpcore.TextContent("This is a simple prompt for testing."))}}, nil
			}},
		{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
			Arguments: []mcpcore.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}},
			Get: func(ctx context.Context, req *mcpcore.GetPromptRequest) (*mcpcore.GetPromptResult, error) {
				t := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Arguments["arg1"], req.Arguments["arg2"])
				return &mcpcore.GetPromptResult{Messages: []mcpcore.PromptMessage{userMsg(mcpcore.TextContent(t))}}, nil
			},
			Complete: func(ctx context.Context, arg, value string) ([]string, error) {
				var out []string
				for _, v := range []string{"paris", "park", "party", "test", "testing"} {
					if len(value) <= len(v) && v[:len(value)] == value {
						out = append(out, v)
					}
				}
				return out, nil
			}},
		{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
			Arguments: []mcpcore.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
			Get: func(ctx context.Context, req *mcpcore.GetPromptRequest) (*mcpcore.GetPromptResult, error) {
				return &mcpcore.GetPromptResult{Messages: []mcpcore.PromptMessage{
					userMsg(mcpcore.EmbeddedResource(mcpcore.ResourceContents{URI: req.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
					userMsg(mcpcore.TextContent("Please process the embedded resource above.")),
				}}, nil
			}},
		{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content",
			Get: func(ctx context.Context, req *mcpcore.GetPromptRequest) (*mcpcore.GetPromptResult, error) {
				return &mcpcore.GetPromptResult{Messages: []mcpcore.PromptMessage{
					userMsg(mcpcore.ImageContent(pngBytes, "image/png")),
					userMsg(mcpcore.TextContent("Please analyze the image above.")),
				}}, nil
			}},
		{Name: "test_input_required_result_prompt", Title: "Input Required Prompt", Description: "A prompt that asks the user for context first",
			Get: func(ctx context.Context, req *mcpcore.GetPromptRequest) (*mcpcore.GetPromptResult, error) {
				res, err := req.Elicit(ctx, "user_context", mcpcore.ElicitParams{Message: "What context should the prompt use?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"context": map[string]any{"type": "string"}}, "required": []string{"context"}}})
				if err != nil {
					return nil, err
				}
				c, _ := res.Content["context"].(string)
				return &mcpcore.GetPromptResult{Messages: []mcpcore.PromptMessage{userMsg(mcpcore.TextContent("Use this context: " + c))}}, nil
			}},
	}
}
