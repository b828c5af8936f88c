package apiserver_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The dependency rings, in one table: contracts ← ports ← {domain,
// adapters, mcpcore} ← apiserver. For each module it names the modules of
// ours its (non-test) packages may reach and the outside packages they may
// not: storage stays out of everything but the adapters, go-kit out of
// everything but the REST API here, Wire out of everything but this
// composition root. It runs under -short too: it is the rule, not a chore.
func TestDependencyRings(t *testing.T) {
	const us = "github.com/takhtabush/takhtabush/"
	storage := []string{"database/sql", "database/sql/driver", "github.com/lib/pq", "modernc.org/sqlite"}
	frameworks := []string{"github.com/go-kit/", "github.com/google/wire"}
	rings := []struct {
		module string
		ours   []string // the modules of ours it may depend on, itself included
		deny   []string // outside packages (or prefixes ending in '/') it may not depend on
	}{
		{"contracts", []string{"contracts"}, slices.Concat(storage, frameworks)},
		{"ports", []string{"contracts", "ports"}, slices.Concat(storage, frameworks)},
		{"domain", []string{"contracts", "ports", "domain"}, slices.Concat(storage, frameworks)},
		{"mcpcore", []string{"contracts", "ports", "mcpcore"}, slices.Concat(storage, frameworks)},
		{"adapters", []string{"contracts", "ports", "adapters"}, frameworks},
	}
	for _, r := range rings {
		deps := goListDeps(t, us+r.module+"/...")
		if len(deps) < 10 {
			t.Fatalf("%s: go list returned only %d packages; the check is not looking", r.module, len(deps))
		}
		for _, p := range deps {
			if rest, ok := strings.CutPrefix(p, us); ok {
				mod, _, _ := strings.Cut(rest, "/")
				if !slices.Contains(r.ours, mod) {
					t.Errorf("%s depends on %s", r.module, p)
				}
				continue
			}
			for _, d := range r.deny {
				if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
					t.Errorf("%s depends on %s", r.module, p)
				}
			}
		}
	}
	// The matcher sees what it must: the apiserver does reach the things
	// the rings keep out of the others.
	api := strings.Join(goListDeps(t, us+"apiserver/..."), "\n") + "\n"
	for _, p := range []string{"database/sql\n", "github.com/go-kit/kit/endpoint\n", us + "adapters/sqlite\n", us + "domain\n"} {
		if !strings.Contains(api, p) {
			t.Errorf("the apiserver does not depend on %s: the check cannot see dependencies", strings.TrimSpace(p))
		}
	}
}

// goListDeps lists the packages pattern's non-test packages depend on,
// themselves included.
func goListDeps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath", pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	var pkgs []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p.ImportPath)
	}
	return pkgs
}
