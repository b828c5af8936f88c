package domain_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps storage and the other driving layers out of the
// domain: no non-test package of this module may depend on database/sql,
// a database driver, the adapters, mcpcore or the apiserver.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"database/sql",
		"database/sql/driver",
		"github.com/lib/pq",
		"modernc.org/sqlite",
		"github.com/takhtabush/takhtabush/adapters",
		"github.com/takhtabush/takhtabush/mcpcore",
		"github.com/takhtabush/takhtabush/apiserver",
	}
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard", "github.com/takhtabush/takhtabush/domain/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		for _, f := range forbidden {
			if p.ImportPath == f || strings.HasPrefix(p.ImportPath, f+"/") {
				t.Errorf("domain depends on %s", p.ImportPath)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list returned only %d packages; the check is not looking", seen)
	}
}
