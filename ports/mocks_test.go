package ports_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every generated mock earns its lines: some test in the workspace
// constructs it. A mock nobody uses is taken out of the go:generate line in
// doc.go, not kept "just in case".
func TestMocksHaveUsers(t *testing.T) {
	ctor := regexp.MustCompile(`func (NewMock\w+)\(`)
	generated := map[string]bool{}
	mocks, err := filepath.Glob("mock/*.go")
	if err != nil || len(mocks) == 0 {
		t.Fatalf("no generated mocks found (%v)", err)
	}
	for _, f := range mocks {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ctor.FindAllStringSubmatch(string(b), -1) {
			generated[m[1]] = false
		}
	}
	// The workspace root is this module's parent (go.work lives there).
	if _, err := os.Stat("../go.work"); err != nil {
		t.Skip("not inside the workspace")
	}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for name := range generated {
			if strings.Contains(string(b), "mock."+name+"(") {
				generated[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, used := range generated {
		if !used {
			t.Errorf("mock.%s is generated but no test uses it: drop it from the go:generate line in doc.go", name)
		}
	}
}
