// Package fsrsharness runs the FSRS test harness (ts-fsrs and fsrs-rs
// under Node, domain/testdata/fsrs-harness) for the rooms' tests: a
// script reads JSON on stdin and writes JSON on stdout.
package fsrsharness

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir is the npm project of the FSRS test harness (ts-fsrs and the
// reference optimiser), installed by make fsrs-harness, from a room's
// package directory.
const Dir = "../testdata/fsrs-harness"

// Run runs a script of the harness in mode with in as its
// input and decodes its output into out. Without the harness installed
// the test is skipped, or fails in CI.
func Run(t testing.TB, script, mode string, in, out any) {
	t.Helper()
	for _, pkg := range []string{"ts-fsrs", "@open-spaced-repetition/binding"} {
		if _, err := os.Stat(filepath.Join(Dir, "node_modules", pkg)); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the FSRS harness is not installed (run make fsrs-harness): %v", err)
			}
			t.Skip("the FSRS harness is not installed: run make fsrs-harness")
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node not found")
		}
		t.Skip("node not found")
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, mode)
	cmd.Dir = Dir
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, mode, err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("harness output: %v", err)
	}
}
