// Package scenario defines the workloads the harness drives against each
// server: the request bodies, the headers every request carries, and how a
// response is judged correct.
package scenario

import (
	"encoding/json"
	"net/http"
)

// ProtocolVersion is the MCP protocol version the load sends in the
// MCP-Protocol-Version header.
const ProtocolVersion = "2025-11-25"

// BodyFunc returns the JSON-RPC request body of call i of a scenario. i
// counts every call the scenario sends to one server from 0: the sanity
// check, warm-ups, measurements and every round, so a scenario can make
// each request different (a new card, a different pending review). It is
// called concurrently and must not keep or modify a returned slice.
type BodyFunc func(i int) []byte

// Fixed returns a BodyFunc that sends body on every call.
func Fixed(body []byte) BodyFunc { return func(int) []byte { return body } }

// Scenario is one kind of request the harness measures.
type Scenario struct {
	// Name identifies the scenario in reports; servers answering scenarios
	// with the same name are compared with each other.
	Name string
	// Body builds the request of each call. It is nil until Bind has run
	// when the scenario needs data from its server.
	Body BodyFunc
	// Bind, when set, builds Body from the data the started server
	// published for this scenario (servers.Setup.Data), such as the ids its
	// requests name. It is called once per started server.
	Bind func(data json.RawMessage) (BodyFunc, error)
	// Check validates a complete response in the sanity pass and in
	// micro-benchmarks. It may be slow.
	Check func(r *Response) error
	// Baseline names the baseline server's scenario that this one's ratios
	// divide by; empty means the scenario of the same name. A scenario only
	// one server answers (a mutating call of the full stack) compares with
	// the floor's echo, the cost of an MCP call that does no work.
	Baseline string
	// Goals bound the scenario's server CPU per request as multiples of
	// other servers' on named scenarios; the report says whether each was
	// met.
	Goals []Goal
}

// Goal is a CPU goal: at most Max times the server CPU per request of
// Server on Scenario (a goal against a server that did not run is missed).
type Goal struct {
	Server   string  `json:"server"`
	Scenario string  `json:"scenario"`
	Max      float64 `json:"max"`
}

// BaselineScenario returns the baseline server's scenario the ratios of s
// divide by.
func (s Scenario) BaselineScenario() string {
	if s.Baseline != "" {
		return s.Baseline
	}
	return s.Name
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
