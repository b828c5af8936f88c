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
	for _, p := range []string{"database/sql\n", "github.com/go-kit/kit/endpoint\n", us + "adapters/sqlite\n", us + "domain\n", us + "domain/internal/kernel\n", us + "domain/study\n"} {
		if !strings.Contains(api, p) {
			t.Errorf("the apiserver does not depend on %s: the check cannot see dependencies", strings.TrimSpace(p))
		}
	}
	t.Run("domain rooms", checkDomainRooms)
}

// The rooms inside the domain module (ARCHITECTURE.md), in one table:
// each room names the rooms it may reach; any room may reach the kernel
// and the pure packages (fsrs, fsrsopt, notes, cardtext, content,
// textrule), which reach no room; only the root package domain, which
// composes the rooms, reaches them all, and nothing reaches it. The
// background room (jobs, purge) is reached through kernel.Jobs, never
// imported. TestDependencyRings runs it, under -short too.
func checkDomainRooms(t *testing.T) {
	const dom = "github.com/takhtabush/takhtabush/domain"
	const kernel = "internal/kernel"
	rooms := map[string][]string{ // room -> the rooms it may reach besides itself
		kernel:       nil,
		"identity":   {kernel},
		"library":    {kernel},
		"study":      {"library", kernel},
		"undo":       {"study", "library", kernel},
		"stats":      {"study", "library", kernel},
		"exchange":   {"library", kernel},
		"filtered":   {"library", kernel},
		"background": {kernel},
	}
	// roomOf names the room of a package of the domain module: "" for the
	// root, its room, or "pure" for a pure package.
	roomOf := func(p string) string {
		rest, ok := strings.CutPrefix(p, dom+"/")
		if !ok {
			return ""
		}
		for r := range rooms {
			if rest == r || strings.HasPrefix(rest, r+"/") {
				return r
			}
		}
		return "pure"
	}
	pkgs := goListPackages(t, dom+"/...")
	if len(pkgs) < len(rooms)+5 {
		t.Fatalf("go list returned only %d packages of the domain module; the check is not looking", len(pkgs))
	}
	reached := map[string]bool{} // "from -> to" arrows seen
	for _, p := range pkgs {
		from := roomOf(p.ImportPath)
		for _, d := range p.Deps {
			if d != dom && !strings.HasPrefix(d, dom+"/") {
				continue
			}
			to := roomOf(d)
			reached[from+" -> "+to] = true
			switch {
			case from == "": // the root composes every room
			case to == "":
				t.Errorf("%s depends on the root package domain: only callers outside the domain compose the rooms", p.ImportPath)
			case from == "pure" && to != "pure":
				t.Errorf("%s (a pure package) depends on %s (room %s): pure packages reach no room", p.ImportPath, d, to)
			case from != "pure" && to != from && to != "pure" && !slices.Contains(rooms[from], to):
				t.Errorf("%s (room %s) depends on %s (room %s): %s may reach only %v", p.ImportPath, from, d, to, from, rooms[from])
			}
		}
	}
	// The matcher sees what it must: every allowed arrow that is used shows up.
	for _, arrow := range []string{"study -> library", "undo -> library", "stats -> study", "exchange -> library", "identity -> " + kernel, "background -> " + kernel, " -> background", "library -> pure"} {
		if !reached[arrow] {
			t.Errorf("no package shows the arrow %q: the check cannot see the rooms' dependencies", arrow)
		}
	}
}

// listedPackage is a package as go list shows it: its path and every
// package it depends on.
type listedPackage struct {
	ImportPath string
	Deps       []string
}

// goListPackages lists the packages matching pattern (non-test) with the
// packages each depends on.
func goListPackages(t *testing.T, pattern string) []struct {
	ImportPath string
	Deps       []string
} {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps", pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	var pkgs []struct {
		ImportPath string
		Deps       []string
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
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
