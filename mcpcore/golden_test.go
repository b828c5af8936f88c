package mcpcore_test

import (
	"bufio"
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/takhtabush/takhtabush/mcpcore"
)

var update = flag.Bool("update", false, "rewrite the .response sections of testdata/*.txtar")

// requestState values carry a timestamp and a nonce; golden files mask them.
var maskState = regexp.MustCompile(`"requestState":"[^"]*"`)

// TestGoldenTranscripts replays JSON-RPC transcripts through the HTTP
// handler. Each NAME.request section is optional "Header: value" lines, a
// blank line, and the body; NAME.response holds the status, content type
// and body. Run `go test ./... -update` to regenerate the responses.
func TestGoldenTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			h := mcpcore.NewHTTPHandler(newFixture(t), mcpcore.HTTPOptions{})
			var out []txtar.File
			want := map[string]string{}
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".response") {
					want[f.Name] = string(f.Data)
				}
			}
			for _, f := range ar.Files {
				if !strings.HasSuffix(f.Name, ".request") {
					continue
				}
				out = append(out, f)
				name := strings.TrimSuffix(f.Name, ".request") + ".response"
				got := replay(t, h, f.Data)
				out = append(out, txtar.File{Name: name, Data: []byte(got)})
				if !*update && want[name] != got {
					t.Errorf("%s:\n--- got\n%s\n--- want\n%s", name, got, want[name])
				}
			}
			if *update {
				ar.Files = out
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func replay(t *testing.T, h http.Handler, data []byte) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	hdr := http.Header{}
	var body strings.Builder
	inBody := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBody:
			body.WriteString(line)
		case line == "":
			inBody = true
		default:
			k, v, _ := strings.Cut(line, ":")
			hdr.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body.String()))
	r.Header = hdr
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	resp := maskState.ReplaceAllString(w.Body.String(), `"requestState":"<masked>"`)
	return "status: " + itoa(w.Code) + "\ncontent-type: " + w.Header().Get("Content-Type") + "\n\n" + strings.TrimRight(resp, "\n") + "\n"
}

func itoa(n int) string { return strconv.Itoa(n) }
