package apiserver_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/content"
)

// TestCardTextCannotUseAppClasses: every class the pages' stylesheet and
// the study widget's stylesheet style is one card text may not carry
// (content.Reserved), so a card cannot dress itself as the app's own
// error box, flash message or button. A class added to either stylesheet
// without being reserved fails here. The cloze class is the exception: the
// card renderer marks cloze deletions with it, and the study views only
// highlight it (as Anki's own note CSS does).
func TestCardTextCannotUseAppClasses(t *testing.T) {
	comment := regexp.MustCompile(`(?s)/\*.*?\*/`)
	class := regexp.MustCompile(`\.(-?[A-Za-z_][A-Za-z0-9_-]*)`)
	r := content.New()
	for _, file := range []string{"internal/web/static/app.css", "../mcpcore/surface/widget/src/style.css"} {
		css, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{contracts.ClozeClass: true} // a content class the renderer puts in cards, not the app's
		for _, m := range class.FindAllSubmatch(comment.ReplaceAll(css, nil), -1) {
			c := string(m[1])
			if seen[c] {
				continue
			}
			seen[c] = true
			if !content.Reserved(c) {
				t.Errorf("%s styles .%s, which card text may use (add it to domain/content's reserved classes)", file, c)
			}
			if out := r.Render(`<span class="`+c+`">x</span>`, nil).HTML; out != "<p><span>x</span></p>" {
				t.Errorf("card text with class %q renders as %q", c, out)
			}
		}
		if len(seen) < 20 {
			t.Errorf("%s: only %d classes found; is the pattern right?", file, len(seen))
		}
	}
}
