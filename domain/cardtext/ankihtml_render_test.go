package cardtext

import (
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/domain/content"
)

// Converted Anki HTML keeps its formatting through the card renderer:
// bold, italics, line breaks, lists, tables, ruby, cloze spans, images and
// audio all reach the page; what is plain text stays text.
func TestAnkiHTMLThroughTheRenderer(t *testing.T) {
	anki := `<b>der Hund</b>&nbsp;<i>(m.)</i><div>Plural: <u>die Hunde</u></div>` +
		`<ul><li>bellen</li><li>beißen</li></ul>` +
		`<table><tr><th>Sg</th><th>Pl</th></tr><tr><td>Hund</td><td>Hunde</td></tr></table>` +
		`<ruby>犬<rt>いぬ</rt></ruby> <span class="cloze">[...]</span> 2*3 &lt;script&gt;` +
		`<div><img src="hund.jpg"></div>[sound:wuff.mp3]`
	media := func(name string) (string, bool) {
		return map[string]string{"hund.jpg": "m1", "wuff.mp3": "m2"}[name], name == "hund.jpg" || name == "wuff.mp3"
	}
	src := FromAnkiHTML(anki, media, nil)
	got := content.New().Render(src, func(id string) string { return "/media/" + id }).HTML
	for _, want := range []string{
		"<b>der Hund</b>", "<i>(m.)</i>", "<u>die Hunde</u>", "<li>bellen</li>", "<li>beißen</li>",
		"<th>Sg</th>", "<td>Hunde</td>", "<ruby>犬<rt>いぬ</rt></ruby>", `<span class="cloze">[...]</span>`,
		"2*3", "&lt;script&gt;", `src="/media/m1"`, `src="/media/m2"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered HTML lacks %q:\n%s\n(from %q)", want, got, src)
		}
	}
	if strings.Contains(got, "<script") {
		t.Errorf("a script tag survived: %s", got)
	}
	// The two lines before the list stay two lines.
	if !strings.Contains(got, "(m.)</i><br") && !strings.Contains(got, "(m.)</i>\n<br") {
		t.Errorf("the line break after the first line is lost: %s", got)
	}
}
