package mcpcore_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the protocol module light: no non-test package of
// mcpcore may (transitively) import storage, the domain or the apiserver.
// This is the tailscale deptest shape: go list -deps, then a deny list.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/takhtabush/takhtabush/mcpcore/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deny := []string{
		"database/sql",
		"database/sql/driver",
		"github.com/lib/pq",
		"modernc.org/sqlite",
		"github.com/takhtabush/takhtabush/adapters",
		"github.com/takhtabush/takhtabush/domain",
		"github.com/takhtabush/takhtabush/apiserver",
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 10 {
		t.Fatalf("suspiciously few packages: %v", pkgs)
	}
	for _, p := range pkgs {
		for _, d := range deny {
			if p == d || strings.HasPrefix(p, d+"/") {
				t.Errorf("mcpcore depends on %s", p)
			}
		}
	}
}
