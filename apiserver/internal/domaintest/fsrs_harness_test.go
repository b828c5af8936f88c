package domain_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fsrsHarnessDir is the FSRS harness (node: ts-fsrs and fsrs-rs through
// its npm binding), shared with domain/study's harness tests.
var fsrsHarnessDir = filepath.Join("..", "..", "..", "domain", "testdata", "fsrs-harness")

// runFSRSHarness runs `node script mode` in the harness with in as JSON on
// stdin and decodes its stdout into out. Without node or the harness it
// skips, or fails under CI.
func runFSRSHarness(t *testing.T, script, mode string, in, out any) {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("the FSRS harness cannot run (make fsrs-harness): %s", why)
		}
		t.Skipf("the FSRS harness cannot run (make fsrs-harness): %s", why)
	}
	for _, pkg := range []string{"ts-fsrs", "@open-spaced-repetition/binding"} {
		if _, err := os.Stat(filepath.Join(fsrsHarnessDir, "node_modules", pkg)); err != nil {
			missing(err.Error())
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, mode)
	cmd.Dir = fsrsHarnessDir
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
