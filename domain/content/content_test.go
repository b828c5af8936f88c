package content

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// resolveTest resolves every well-formed id under /media/.
func resolveTest(id string) string { return "/media/" + id + "?sig=a&b=1" }

// allowedAttrs is the allow-list of DESIGN §7, element by element.
var allowedAttrs = map[string]map[string]bool{
	"span": {"class": true}, "div": {"class": true},
	"td": {"colspan": true, "rowspan": true}, "th": {"colspan": true, "rowspan": true},
	"a":     {"href": true, "rel": true, "target": true},
	"img":   {"src": true, "alt": true, "data-missing-media": true},
	"audio": {"src": true, "controls": true, "data-missing-media": true},
}

// checkAllowed parses out and fails on any element, attribute or URL the
// allow-list does not name.
func checkAllowed(t *testing.T, in, out string) {
	t.Helper()
	allowed := map[string]bool{"a": true, "img": true, "audio": true}
	for _, tag := range append(append([]string{}, AllowedTags...), rendererTags...) {
		allowed[tag] = true
	}
	doc, err := html.Parse(strings.NewReader("<!doctype html><html><body>" + out))
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data != "html" && n.Data != "head" && n.Data != "body" {
			if !allowed[n.Data] {
				t.Errorf("input %q: element <%s> survived in %q", in, n.Data, out)
			}
			for _, a := range n.Attr {
				if !allowedAttrs[n.Data][a.Key] {
					t.Errorf("input %q: attribute %s on <%s> survived in %q", in, a.Key, n.Data, out)
				}
				switch a.Key {
				case "href":
					if !strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "http://") &&
						!strings.HasPrefix(a.Val, "mailto:") && !strings.HasPrefix(a.Val, "/media/") {
						t.Errorf("input %q: href %q survived", in, a.Val)
					}
				case "src":
					if a.Val != "" && !strings.HasPrefix(a.Val, "/media/") {
						t.Errorf("input %q: src %q is not a resolved media URL", in, a.Val)
					}
				case "target":
					if a.Val != "_blank" {
						t.Errorf("input %q: target %q", in, a.Val)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	lower := strings.ToLower(out)
	// The tree walk above checks every element and attribute; text such as
	// "javascript:x" is harmless text. These tag openings must not appear
	// even as broken markup.
	for _, bad := range []string{"<script", "<iframe", "<svg", "<style", "<object", "<embed", "<form", "<meta", "<link", "<base"} {
		if strings.Contains(lower, bad) {
			t.Errorf("input %q: %q in the output %q", in, bad, out)
		}
	}
}

// Hostile markup loses everything outside the allow-list, alone and mixed
// into allowed markup.
func TestHostileMarkup(t *testing.T) {
	hostile := []string{
		`<script>alert(1)</script>`,
		`<SCRIPT SRC=//evil.example/x.js></SCRIPT>`,
		`<scr<script>ipt>alert(1)</scr</script>ipt>`,
		`<img src=x onerror=alert(1)>`,
		`<img src="https://evil.example/track.png">`,
		`<img src="data:image/png;base64,AAAA">`,
		`<img src="media:ok" onerror="alert(1)">`,
		`![x](media:a"onerror=alert(1))`,
		`![x](https://evil.example/pixel.gif)`,
		`![x](data:image/svg+xml,<svg onload=alert(1)>)`,
		`[click](javascript:alert(1))`,
		`[click](JaVaScRiPt:alert(1))`,
		`[click](jav&#x61;script:alert(1))`,
		`[click](java	script:alert(1))`,
		`<javascript:alert(1)>`,
		`<a href="javascript:alert(1)">a</a>`,
		`<a href="vbscript:msgbox(1)">a</a>`,
		`<a href="data:text/html,<script>alert(1)</script>">a</a>`,
		`<a href="/relative">rel</a>`,
		`<iframe src="https://evil.example"></iframe>`,
		`<object data="x"></object><embed src="x">`,
		`<form action="https://evil.example"><input name=a><button>go</button></form>`,
		`<style>body{display:none}</style>`,
		`<link rel=stylesheet href=https://evil.example/x.css>`,
		`<meta http-equiv="refresh" content="0;url=https://evil.example">`,
		`<svg><script>alert(1)</script></svg>`,
		`<math><mtext><img src=x onerror=alert(1)></mtext></math>`,
		`<span style="background:url(javascript:alert(1))">s</span>`,
		`<div class="a" onmouseover="alert(1)" id="x">d</div>`,
		`<b class="x" title="t">b</b>`,
		`<td colspan="2;alert(1)">c</td>`,
		`<table><tr><td colspan="99999">c</td></tr></table>`,
		`<audio src="https://evil.example/a.mp3" autoplay></audio>`,
		`<audio controls src="media:ok"></audio><video src="media:ok"></video>`,
		`[sound:../../etc/passwd]`,
		`[sound:ok" onerror="x]`,
		`src="media:plain" typed as text`,
		`<base href="https://evil.example/">`,
		`<p><a href="https://ok.example" target="_self" rel="opener">x</a></p>`,
		"```\n<script>alert(1)</script>\n```",
		`<!-- <script>alert(1)</script> -->`,
		`<![CDATA[<script>alert(1)</script>]]>`,
	}
	r := New()
	for _, in := range hostile {
		checkAllowed(t, in, r.Render(in, resolveTest).HTML)
		mixed := "# Title\n\n**bold** <span class=\"hl\">" + in + "</span>\n\n| a |\n|---|\n| " + in + " |\n"
		checkAllowed(t, mixed, r.Render(mixed, resolveTest).HTML)
	}
	// Text that only looks like a media attribute stays text.
	if out := r.Render(`src="media:plain"`, resolveTest).HTML; strings.Contains(out, "/media/plain") {
		t.Errorf("typed text became a media URL: %q", out)
	}
}

// What the allow-list names survives, with its permitted attributes.
func TestAllowedMarkupSurvives(t *testing.T) {
	r := New()
	for in, want := range map[string]string{
		"*em* **strong**":                                "<em>em</em> <strong>strong</strong>",
		"# H1\n\n###### H6":                              "<h1>H1</h1>\n<h6>H6</h6>",
		"a<b>b</b><i>i</i><u>u</u><s>s</s>":              "<b>b</b><i>i</i><u>u</u><s>s</s>",
		"H<sub>2</sub>O x<sup>2</sup>":                   "H<sub>2</sub>O x<sup>2</sup>",
		`<span class="hl">x</span>`:                      `<span class="hl">x</span>`,
		`<div class="note">x</div>`:                      `<div class="note">x</div>`,
		`<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>`: `<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>`,
		`<table><tr><td colspan="2">c</td></tr></table>`: `<td colspan="2">c</td>`,
		"line one\nline two":                             "line one<br/>\nline two",
		"`code` and <code>c</code>":                      "<code>code</code> and <code>c</code>",
		"> quote":                                        "<blockquote>",
		"- a\n- b":                                       "<ul>\n<li>a</li>",
		"1. a":                                           "<ol>",
		"---":                                            "<hr/>",
		"![Cat](media:cat_1)":                            `<img src="/media/cat_1?sig=a&amp;b=1" alt="Cat"/>`,
		"[sound:word-2]":                                 `<audio controls="" src="/media/word-2?sig=a&amp;b=1"></audio>`,
		"[site](https://example.org/a?b=c)":              `<a href="https://example.org/a?b=c" rel="nofollow noreferrer noopener" target="_blank">site</a>`,
		"a < b & c":                                      "a &lt; b &amp; c",
	} {
		out := r.Render(in, resolveTest).HTML
		if !strings.Contains(out, want) {
			t.Errorf("Render(%q) = %q, want it to contain %q", in, out, want)
		}
		checkAllowed(t, in, out)
	}
}

// Media references come back in order, once each; an id the caller cannot
// resolve is marked missing, never left as a media: URL.
func TestMediaReferences(t *testing.T) {
	r := New()
	got := r.Render("![a](media:one) [sound:two] ![again](media:one)", func(id string) string {
		if id == "one" {
			return "/media/one"
		}
		return ""
	})
	if strings.Join(got.Media, ",") != "one,two" {
		t.Errorf("media %v, want [one two]", got.Media)
	}
	if !strings.Contains(got.HTML, `src="" data-missing-media="two"`) || strings.Contains(got.HTML, "media:") {
		t.Errorf("unresolved media: %q", got.HTML)
	}
	if out := r.Render("![a](media:one)", nil).HTML; strings.Contains(out, "media:one") {
		t.Errorf("nil resolver left a media: URL: %q", out)
	}
}

// Plain text for lists: no markup, one line, cut.
func TestPlain(t *testing.T) {
	r := New()
	if got := r.Plain("# Capital\n\nof <b>France</b> &amp; <script>x()</script>\n- a\n- b", 0); got != "Capital of France & a b" {
		t.Errorf("Plain = %q", got)
	}
	if got := r.Plain("abcdefghij", 5); got != "abcd…" {
		t.Errorf("Plain cut = %q", got)
	}
}

// Oversized input is cut, not refused, and stays valid UTF-8.
func TestRenderBounded(t *testing.T) {
	r := New()
	big := strings.Repeat("é", MaxSourceBytes)
	out := r.Render(big, nil).HTML
	if len(out) > MaxSourceBytes+64 || !strings.HasPrefix(out, "<p>é") {
		t.Errorf("big input: %d bytes", len(out))
	}
}

// FuzzRender holds the allow-list for any input.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"<script>x</script>", "![a](media:b)", "[sound:c]", "<a href=javascript:x>y</a>", "| a |\n|---|\n| <img src=x> |"} {
		f.Add(s)
	}
	r := New()
	f.Fuzz(func(t *testing.T, in string) {
		checkAllowed(t, in, r.Render(in, resolveTest).HTML)
	})
}

// Card text may not dress itself in the app's own classes (an error box,
// a flash message, a button): those class names are dropped, the card's
// own are kept, and an attribute left empty goes.
func TestReservedClassesDropped(t *testing.T) {
	r := New()
	for in, want := range map[string]string{
		`<div class="flash error">Your session expired</div>`:           `<div>Your session expired</div>`,
		`<span class="hl button w50 nt-card NOTICE">x</span>`:           `<span class="hl">x</span>`,
		`<div class="cloze my-hint">x</div>`:                            `<div class="cloze my-hint">x</div>`,
		`<b title='class="error"'>x</b> class="error" text`:             `<b>x</b> class=&#34;error&#34; text`,
		`<div class="   panel  ">x</div><span class="r-again">y</span>`: `<div>x</div><span>y</span>`,
	} {
		if out := r.Render(in, nil).HTML; !strings.Contains(out, want) {
			t.Errorf("Render(%q) = %q, want it to hold %q", in, out, want)
		}
	}
	for _, c := range []string{"flash", "Error", "w7", "nt-anything"} {
		if !Reserved(c) {
			t.Errorf("%q is not reserved", c)
		}
	}
}
