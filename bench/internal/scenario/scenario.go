// Package scenario defines the workloads the harness drives against each
// server: the request bodies, the headers every request carries, and how a
// response is judged correct.
package scenario

import (
	"net/http"
)

// ProtocolVersion is the MCP protocol version the load sends in the
// MCP-Protocol-Version header.
const ProtocolVersion = "2025-11-25"

// Scenario is one kind of request the harness measures.
type Scenario struct {
	// Name identifies the scenario in reports; servers answering scenarios
	// with the same name are compared with each other.
	Name string
	// Body is the JSON-RPC request sent for every call.
	Body []byte
	// Check validates a complete response in the sanity pass and in
	// micro-benchmarks. It may be slow.
	Check func(r *Response) error
}

// Header returns the HTTP headers every MCP request of the load carries:
// a stateless Streamable HTTP POST under protocol version 2025-11-25.
func Header() http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {ProtocolVersion},
	}
}
