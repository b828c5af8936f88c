package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
)

// Names of the MCP engine scenarios.
const (
	ToolsList = "tools/list"
	Echo      = "echo"
	ListDecks = "list_decks"
)

// MCP returns the three engine-comparison scenarios: tools/list, and
// tools/call of echo and of list_decks.
func MCP() []Scenario {
	return []Scenario{
		{Name: ToolsList, Body: Fixed([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)), Check: checkToolsList},
		{Name: Echo, Body: Fixed(echoBody()), Check: checkEcho},
		{Name: ListDecks, Body: Fixed(listDecksBody), Check: checkListDecks},
	}
}

// listDecksBody calls list_decks without arguments; the full stack sends it too.
var listDecksBody = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_decks","arguments":{}}}`)

func echoBody() []byte {
	msg, _ := json.Marshal(fixture.EchoMessage)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":%s}}}`, msg)
}

func checkID(msg *RPCResponse, want string) error {
	if string(msg.ID) != want {
		return fmt.Errorf("id = %s, want %s", msg.ID, want)
	}
	return nil
}

func checkToolsList(r *Response) error {
	msg, err := r.Decode()
	if err != nil {
		return err
	}
	if err := checkID(msg, "1"); err != nil {
		return err
	}
	var res struct {
		Tools []struct {
			Name         string          `json:"name"`
			Title        string          `json:"title"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		return fmt.Errorf("tools/list result: %w", err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
		def := defByName(t.Name)
		if def == nil {
			return fmt.Errorf("unexpected tool %q", t.Name)
		}
		if t.Description != def.Description || t.Title != def.Title {
			return fmt.Errorf("tool %q: title/description = %q/%q", t.Name, t.Title, t.Description)
		}
		if !sameJSON(t.InputSchema, def.InputSchema) {
			return fmt.Errorf("tool %q: inputSchema = %s", t.Name, t.InputSchema)
		}
		if def.OutputSchema != nil && !sameJSON(t.OutputSchema, def.OutputSchema) {
			return fmt.Errorf("tool %q: outputSchema = %s", t.Name, t.OutputSchema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{fixture.EchoTool, fixture.ListDecksTool}) {
		return fmt.Errorf("tools = %v", names)
	}
	return nil
}

func defByName(name string) *fixture.ToolDef {
	for _, d := range fixture.Tools() {
		if d.Name == name {
			return &d
		}
	}
	return nil
}

// toolResult is the shape of a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

func decodeToolResult(r *Response, id string) (*toolResult, error) {
	msg, err := r.Decode()
	if err != nil {
		return nil, err
	}
	if err := checkID(msg, id); err != nil {
		return nil, err
	}
	var res toolResult
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		return nil, fmt.Errorf("tools/call result: %w", err)
	}
	if res.IsError {
		return nil, fmt.Errorf("tool error: %s", msg.Result)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		return nil, fmt.Errorf("want one text content block, got %s", msg.Result)
	}
	return &res, nil
}

func checkEcho(r *Response) error {
	res, err := decodeToolResult(r, "2")
	if err != nil {
		return err
	}
	if res.Content[0].Text != fixture.EchoMessage {
		return fmt.Errorf("echo text = %q, want %q", res.Content[0].Text, fixture.EchoMessage)
	}
	return nil
}

func checkListDecks(r *Response) error {
	res, err := decodeToolResult(r, "3")
	if err != nil {
		return err
	}
	want, err := json.Marshal(fixture.DeckList{Decks: fixture.Decks()})
	if err != nil {
		return err
	}
	if !sameJSON(res.StructuredContent, want) {
		return fmt.Errorf("structuredContent differs from the fixture: %.300s", res.StructuredContent)
	}
	if !sameJSON([]byte(res.Content[0].Text), want) {
		return fmt.Errorf("text block differs from the fixture: %.300s", res.Content[0].Text)
	}
	return nil
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}
