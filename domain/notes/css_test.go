package notes

import (
	"strings"
	"testing"
	"time"
)

// ScopeCSS confines a package's CSS to the card container and drops
// everything that could load something or reach outside it.
func TestScopeCSS(t *testing.T) {
	const sc = ".nt-card"
	for _, c := range []struct{ in, want string }{
		{".card { font-family: Georgia, serif; color: #223; }", ".nt-card { font-family: Georgia, serif; color: #223; }"},
		{".card small, .cloze { color: gray }", ".nt-card small, .nt-card .cloze { color: gray; }"},
		{"html body .card>div b{font-weight:700}", ".nt-card >div b { font-weight: 700; }"},
		{"body { background: white } :root { color: black } :root > p { margin: 0 }", ".nt-card { background: white; }\n.nt-card { color: black; }\n.nt-card > p { margin: 0; }"},
		{".card.nightMode, .card:hover { color: red !important }", ".nt-card.nightMode, .nt-card:hover { color: red !important; }"},
		{"* { margin: 0 }", ".nt-card * { margin: 0; }"},
		// Nothing loads: url(), image functions, @import, @font-face.
		{`.card { background: url("https://evil.example/x.png"); color: blue; }`, ".nt-card { color: blue; }"},
		{`.card { background-image: image-set("a.png" 1x); border-image: url(a.png) 30; }`, ""},
		{`@import url("https://evil.example/a.css"); @import "b.css"; .x { color: red }`, ".nt-card .x { color: red; }"},
		{`@font-face { font-family: F; src: url(f.woff) } .x { font-family: F }`, ".nt-card .x { font-family: F; }"},
		// Escapes could spell url(: dropped.
		{`.card { background: u\72 l(x.png); color: red }`, ".nt-card { color: red; }"},
		{`.c\61 rd { color: red }`, ""},
		{`.x { behavior: url(x.htc); -moz-binding: url(x.xml#y); width: expression(alert(1)); color: red }`, ".nt-card .x { color: red; }"},
		// Siblings of the container are outside it.
		{".card + p, .card ~ div, body ~ x, .card.a~b, .card p + q { color: red }", ".nt-card p + q { color: red; }"},
		// @media is kept, scoped; other at-rules are dropped.
		{"@media (max-width: 600px) { .card { font-size: 18px } }", "@media (max-width: 600px) {\n.nt-card { font-size: 18px; }\n}"},
		{"@keyframes k { from { color: red } } @supports (display: grid) { .x { color: red } } @page { margin: 0 }", ""},
		{"@media print { @media screen { @media all { .x { color: red } } } }", ""},
		// Card styles stay inside the card's box: the container itself keeps
		// its place, size, stacking and containment, and paints nothing
		// outside; the elements inside are never fixed to the viewport.
		{".card { contain: none !important; position: fixed !important; inset: 0; z-index: 2147483647; background: white; color: red }",
			".nt-card { background: white; color: red; }"},
		{".card.x, .card:hover, body { contain: none; margin: -100px; width: 100vw; height: 100vh; box-shadow: 0 0 0 100vmax red; outline: 100vmax solid red; transform: scale(9); display: none; font-size: 20px }",
			".nt-card.x, .nt-card:hover, .nt-card { font-size: 20px; }"},
		{".card::before { content: 'Your session expired'; position: absolute; font-weight: 700 }", ".nt-card::before { font-weight: 700; }"},
		{".card, .card div { position: fixed; color: red; z-index: 99999 }", ".nt-card { color: red; }\n.nt-card div { color: red; }"},
		{"div { position: FIXED; top: 0 } p { position: sticky } i { position: absolute; z-index: 3 } b { z-index: -11; contain: none; content-visibility: visible } u { z-index: 10 !important }",
			".nt-card div { top: 0; }\n.nt-card i { position: absolute; z-index: 3; }\n.nt-card u { z-index: 10 !important; }"},
		// Broken CSS: what is broken is dropped, what follows a closed rule survives.
		{".x { color: red } .y { color: ", ".nt-card .x { color: red; }"},
		{"} .x { color: red; junk; : nothing; }", ".nt-card .x { color: red; }"},
		{"<style>.x{color:red}</style>", ""},
		{"", ""},
	} {
		if got := ScopeCSS(c.in, sc); got != c.want {
			t.Errorf("ScopeCSS(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := ScopeCSS(".x{color:red}"+strings.Repeat(" ", MaxCSSLen), sc); got != "" {
		t.Errorf("CSS over the limit kept: %q", got)
	}
}

// A hostile stylesheet of the maximum size is scoped quickly.
func TestScopeCSSBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("@media a{", MaxCSSLen/9),
		strings.Repeat(".a .b, ", MaxCSSLen/7) + "{color:red}",
		strings.Repeat(".a{color:red}", MaxCSSLen/13),
		strings.Repeat("(", MaxCSSLen),
	} {
		start := time.Now()
		out := ScopeCSS(in, ".nt-card")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%d bytes took %s", len(in), d)
		}
		if len(out) > 4*len(in)+100 {
			t.Errorf("%d bytes made %d", len(in), len(out))
		}
	}
}

// FuzzScopeCSS: whatever the input, the output loads nothing, carries no
// escape or markup, and every rule's selectors start with the scope.
func FuzzScopeCSS(f *testing.F) {
	for _, s := range []string{".card{color:red}", `@import "x"; .a{background:url(x)}`, "@media x{.card .b{c:d}}", `.c\61 rd{x:y}`, ".card ~ p{x:y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := ScopeCSS(in, ".nt-card")
		low := strings.ToLower(out)
		for _, bad := range []string{"url(", `\`, "@import", "@font-face", "<", "image-set(", "expression("} {
			if strings.Contains(low, bad) {
				t.Fatalf("ScopeCSS(%q) = %q holds %q", in, out, bad)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if line == "" || line == "}" || strings.HasPrefix(line, "@media ") {
				continue
			}
			sels, decls, _ := strings.Cut(line, " { ")
			own := false
			for _, s := range strings.Split(sels, ", ") {
				if !strings.HasPrefix(s, ".nt-card") {
					t.Fatalf("ScopeCSS(%q): selector %q outside the scope in %q", in, s, out)
				}
				if _, tail := firstCompound(s); tail == "" {
					own = true
				}
			}
			for _, d := range strings.Split(strings.TrimSuffix(decls, " }"), "; ") {
				prop, v, _ := strings.Cut(strings.TrimSuffix(d, ";"), ": ")
				if (own && !containerProperties[strings.ToLower(prop)]) || !insideOnly(strings.ToLower(prop), v) {
					t.Fatalf("ScopeCSS(%q) = %q: %q could lift the card out of its box", in, out, d)
				}
			}
		}
	})
}
