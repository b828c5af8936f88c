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

// All returns the registered servers in run order.
func All() []Server { return all }

// Lookup returns the server registered under name.
func Lookup(name string) (Server, error) {
	var names []string
	for _, s := range all {
		if s.Name() == name {
			return s, nil
		}
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("unknown server %q (have %s)", name, strings.Join(names, ", "))
}
