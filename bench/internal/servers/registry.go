package servers

import (
	"fmt"
	"strings"
)

// Baseline is the name of the server every other one is compared against.
const Baseline = "floor"

// all lists the registered servers in the order each round runs them.
var all = []Server{
	Engine{},
	GoSDK{},
	MCPGo{},
	Floor{},
	DBFloor{},
	FullStack{},
	DBFloor{Postgres: true},
	FullStack{Postgres: true},
}

// big lists the big-account servers cmd/bigread runs (not mcpbench).
var big = []Server{BigRead{}, BigRead{Postgres: true}}

// All returns the registered servers in run order.
func All() []Server { return all }

// Big returns the big-account servers in run order.
func Big() []Server { return big }

// Lookup returns the server registered under name.
func Lookup(name string) (Server, error) {
	var names []string
	for _, s := range append(all[:len(all):len(all)], big...) {
		if s.Name() == name {
			return s, nil
		}
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("unknown server %q (have %s)", name, strings.Join(names, ", "))
}
