package mcpcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/takhtabush/takhtabush/mcpcore"
)

// These benchmarks compare the engine with a bare net/http + encoding/json
// floor serving the same three calls (tools/list, a trivial echo, a tool
// returning 20 records as structuredContent + text). The shared
// comparison with go-sdk and mcp-go lives in internal/bench.

type record struct {
	ID    string   `json:"id"`
	Front string   `json:"front"`
	Back  string   `json:"back"`
	Due   int64    `json:"due"`
	Tags  []string `json:"tags"`
}

var records = func() []record {
	out := make([]record, 20)
	for i := range out {
		out[i] = record{ID: "card-" + strconv.Itoa(i), Front: "What is " + strconv.Itoa(i) + "?", Back: "It is " + strconv.Itoa(i), Due: int64(1700000000 + i), Tags: []string{"math", "basics"}}
	}
	return out
}()

var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)

func benchServer(b *testing.B) http.Handler {
	srv, err := mcpcore.NewServer(mcpcore.Implementation{Name: "bench", Version: "1"}, mcpcore.Options{}, mcpcore.Catalog{Tools: []mcpcore.Tool{
		{Name: "echo", Description: "Echo text", InputSchema: echoSchema, Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcpcore.TextResult(a.Text), nil
		}},
		{Name: "records", Description: "20 records", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
			return mcpcore.StructuredResult(map[string]any{"cards": records})
		}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	return mcpcore.NewHTTPHandler(srv, mcpcore.HTTPOptions{})
}

// floor is the bare net/http + encoding/json baseline.
func floor() http.Handler {
	type req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content           []content `json:"content,omitempty"`
		StructuredContent any       `json:"structuredContent,omitempty"`
		Tools             []any     `json:"tools,omitempty"`
	}
	type resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  result          `json:"result"`
	}
	tools := []any{
		map[string]any{"name": "echo", "description": "Echo text", "inputSchema": echoSchema},
		map[string]any{"name": "records", "description": "20 records", "inputSchema": json.RawMessage(`{"type":"object"}`)},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q req
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		out := resp{JSONRPC: "2.0", ID: q.ID}
		switch q.Method {
		case "tools/list":
			out.Result.Tools = tools
		case "tools/call":
			switch q.Params.Name {
			case "echo":
				var a struct {
					Text string `json:"text"`
				}
				json.Unmarshal(q.Params.Arguments, &a)
				out.Result.Content = []content{{Type: "text", Text: a.Text}}
			case "records":
				b, _ := json.Marshal(map[string]any{"cards": records})
				out.Result.Content = []content{{Type: "text", Text: string(b)}}
				out.Result.StructuredContent = json.RawMessage(b)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
}

// discardWriter is a minimal ResponseWriter so the benchmark measures the handler.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

func runBench(b *testing.B, h http.Handler, body string) {
	r, _ := http.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	rd := bytes.NewReader(nil)
	w := &discardWriter{h: http.Header{}}
	payload := []byte(body)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd.Reset(payload)
		r.Body = io.NopCloser(rd)
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

const (
	listBody    = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	echoBody    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	recordsBody = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"records","arguments":{}}}`
)

func BenchmarkToolsList(b *testing.B) {
	b.Run("mcpcore", func(b *testing.B) { runBench(b, benchServer(b), listBody) })
	b.Run("floor", func(b *testing.B) { runBench(b, floor(), listBody) })
}

func BenchmarkCallEcho(b *testing.B) {
	b.Run("mcpcore", func(b *testing.B) { runBench(b, benchServer(b), echoBody) })
	b.Run("floor", func(b *testing.B) { runBench(b, floor(), echoBody) })
}

func BenchmarkCall20Records(b *testing.B) {
	b.Run("mcpcore", func(b *testing.B) { runBench(b, benchServer(b), recordsBody) })
	b.Run("floor", func(b *testing.B) { runBench(b, floor(), recordsBody) })
}
