package web

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestPagesTakeErrorStatusesFromTheTable: no page handler picks an error
// status by hand; every 4xx and 5xx comes from the httperr table, so a kind
// means the same status on every door.
func TestPagesTakeErrorStatusesFromTheTable(t *testing.T) {
	handPicked := regexp.MustCompile(`http\.Status(BadRequest|Unauthorized|Forbidden|NotFound|Conflict|TooManyRequests|ServiceUnavailable|InternalServerError|RequestEntityTooLarge|MisdirectedRequest|MethodNotAllowed|UnprocessableEntity)\b`)
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources found: %v", err)
	}
	// render.go's last-resort answer, when the error page itself cannot be
	// rendered, is the one place allowed to name a status.
	allowed := map[string]bool{"render.go": true}
	for _, f := range files {
		if allowed[f] || regexp.MustCompile(`_test\.go$`).MatchString(f) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range handPicked.FindAll(src, -1) {
			t.Errorf("%s picks %s by hand; take it from httperr.Status(kind) or httperr.Page", f, m)
		}
	}
}
