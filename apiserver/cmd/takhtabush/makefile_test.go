package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// make run passes --db and --addr only when DB or ADDR are given, so that
// TAKHTABUSH_DATABASE_URL and TAKHTABUSH_ADDR reach serve otherwise.
func TestMakeRunHonoursTheEnvironment(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dryRun := func(env []string, args ...string) string {
		cmd := exec.Command("make", append([]string{"-s", "-n", "-C", "../../..", "run"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n run: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := dryRun([]string{"TAKHTABUSH_ADDR=127.0.0.1:9999", "TAKHTABUSH_DATABASE_URL=sqlite:/tmp/x.db"}); strings.Contains(out, "--addr") || strings.Contains(out, "--db") {
		t.Errorf("make run overrides the environment with flags:\n%s", out)
	}
	if out := dryRun(nil, "DB=sqlite:/tmp/y.db", "ADDR=127.0.0.1:7777"); !strings.Contains(out, "--db 'sqlite:/tmp/y.db'") || !strings.Contains(out, "--addr '127.0.0.1:7777'") {
		t.Errorf("make run DB=… ADDR=… does not pass them:\n%s", out)
	}
}

// The README's make targets table lists every documented Makefile target.
func TestReadmeListsEveryMakeTarget(t *testing.T) {
	mk, err := os.ReadFile("../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`(?m)^([a-z-]+):.*## `).FindAllStringSubmatch(string(mk), -1)
	if len(targets) < 5 {
		t.Fatalf("found only %d documented targets in the Makefile", len(targets))
	}
	for _, m := range targets {
		if !strings.Contains(string(readme), "| `make "+m[1]+"` |") {
			t.Errorf("README's make targets table lacks make %s", m[1])
		}
	}
}
