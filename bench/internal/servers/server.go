// Package servers holds the MCP server implementations the harness compares.
//
// To add a server kind, implement [Server] in a new file and add it to the
// list in registry.go. The harness runs Start in a child process and drives
// the returned handler with the server's scenarios; micro-benchmarks call the
// handler in-process.
package servers

import (
	"context"
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
	Start(ctx context.Context) (*Instance, error)
	// Scenarios lists the workloads the server answers. Servers answering
	// scenarios of the same name are compared with each other.
	Scenarios() []scenario.Scenario
}

// Instance is a started server.
type Instance struct {
	// Handler serves the MCP endpoint. The harness routes every path except
	// its own stats path to it.
	Handler http.Handler
	// Header holds extra headers every request must carry, such as an API
	// key minted during setup. It is sent to the harness by the child process.
	Header http.Header
	// Close releases resources created by Start. It may be nil.
	Close func() error
}

// Shutdown calls Close if it is set.
func (in *Instance) Shutdown() error {
	if in.Close == nil {
		return nil
	}
	return in.Close()
}
