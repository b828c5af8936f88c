package mcpcore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzHandle drives arbitrary bytes through the codec and dispatch in both
// eras: the engine must never panic and every response must be valid JSON.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"bzoy"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"contactMethod":"phone"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://template/1/data"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_input_required_result_elicitation","inputResponses":{"user_name":{"action":"accept","content":{"name":"x"}}},"requestState":"a.b","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`,
		`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":"\u0031","method":"tools\/call","params":{"name":"test_simple_text"}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`{`, `[]`, `null`, `"x"`, `{"jsonrpc":"2.0","id":-0,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":""}}}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	srv := newFixture(f)
	modern := http.Header{}
	modern.Set("MCP-Protocol-Version", "2026-07-28")
	f.Fuzz(func(t *testing.T, msg []byte, withHeaders bool) {
		var hdr http.Header
		if withHeaders {
			hdr = modern
		}
		var notes [][]byte
		out := srv.HandleStream(context.Background(), msg, hdr, func(n []byte) { notes = append(notes, n) })
		if out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON response %q for %q", out, msg)
		}
		for _, n := range notes {
			if !json.Valid(n) {
				t.Fatalf("invalid JSON notification %q", n)
			}
		}
	})
}
