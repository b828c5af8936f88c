// Package servers holds the MCP server implementations the harness compares.
//
// To add a server kind, implement [Server] in a new file and add it to the
// list in registry.go. The harness runs Start in a child process and drives
// the returned handler with the server's scenarios; micro-benchmarks call the
// handler in-process.
package servers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// Server is one server implementation under test.
type Server interface {
	// Name is the short identifier used on the command line and in reports.
	Name() string
	// Description says in a few words what the server is and how it is configured.
	Description() string
	// Start builds the server in the current process, including any setup such
	// as opening and seeding a database.
	Start(ctx context.Context, opts Options) (*Instance, error)
	// Scenarios lists the workloads the server answers. Servers answering
	// scenarios of the same name are compared with each other.
	Scenarios() []scenario.Scenario
}

// Options tell Start what the run will ask of the server.
type Options struct {
	// Calls is, by scenario name, the most requests the scenario will send
	// to this server in the whole run (sanity check, warm-ups and
	// measurements). A server whose requests use something up, such as
	// cards pending review, prepares at least this many; a missing
	// scenario gets a handful (in-process tests).
	Calls map[string]int
}

// Instance is a started server.
type Instance struct {
	// Handler serves the MCP endpoint. The harness routes every path except
	// its own stats path to it.
	Handler http.Handler
	// Header holds extra headers every request must carry, such as an API
	// key minted during setup. It is sent to the harness by the child process.
	Header http.Header
	// Setup holds, by scenario name, what a scenario needs from this
	// instance: headers replacing Header's, and data for its Bind.
	Setup map[string]Setup
	// Verify, when set, runs after the last measurement with the number of
	// requests each scenario sent (all of them succeeded) and checks their
	// lasting effects, such as one audit row per mutating call. It returns
	// a one-line summary for the report, or an error that fails the run.
	Verify func(ctx context.Context, calls map[string]int) (string, error)
	// Statements, when set, counts the database statements run so far
	// (the report gives statements per request).
	Statements func() int64
	// DBCPU, when set, is the CPU time in nanoseconds the database server
	// has spent so far on this instance's connections (Postgres backends;
	// SQLite runs inside the process, so its CPU is already the process's).
	DBCPU func() int64
	// Close releases resources created by Start. It may be nil.
	Close func() error
}

// Setup is what one scenario needs from a started instance.
type Setup struct {
	// Header holds headers replacing the instance's for this scenario's
	// requests, such as another account's API key.
	Header http.Header `json:"header,omitempty"`
	// Data is the input of the scenario's Bind.
	Data json.RawMessage `json:"data,omitempty"`
	// Capacity, when positive, is the most calls Data supports (each
	// pending review can be rated once); the harness refuses to send more.
	Capacity int `json:"capacity,omitempty"`
}

// Shutdown calls Close if it is set.
func (in *Instance) Shutdown() error {
	if in.Close == nil {
		return nil
	}
	return in.Close()
}

// HeaderFor returns the headers a scenario's requests carry besides
// scenario.Header: the instance's, with the scenario's own replacing them.
func (in *Instance) HeaderFor(name string) http.Header {
	h := in.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range in.Setup[name].Header {
		h[k] = v
	}
	return h
}

// Bound returns the server's scenarios with every Body built: a scenario
// with Bind gets its body from the setup data of its name.
func Bound(scs []scenario.Scenario, setup map[string]Setup) ([]scenario.Scenario, error) {
	out := make([]scenario.Scenario, len(scs))
	for i, sc := range scs {
		if sc.Bind != nil {
			body, err := sc.Bind(setup[sc.Name].Data)
			if err != nil {
				return nil, err
			}
			sc.Body = body
		}
		out[i] = sc
	}
	return out, nil
}
