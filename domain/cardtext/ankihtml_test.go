package cardtext

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestFromAnkiHTML(t *testing.T) {
	media := func(name string) (string, bool) {
		switch name {
		case "hund.jpg":
			return "m1", true
		case "hund bellt.mp3":
			return "m2", true
		}
		return "", false
	}
	cases := []struct {
		name, in, want string
		dropped        Dropped
	}{
		{"bold and nbsp", "<b>der Hund</b>&nbsp;", "<b>der Hund</b>", Dropped{}},
		{"strong em", "<strong>a</strong> <em>b</em> <u>c</u> x<sub>2</sub> e<sup>x</sup>", "<b>a</b> <i>b</i> <u>c</u> x<sub>2</sub> e<sup>x</sup>", Dropped{}},
		{"divs are lines", "Hund<div>dog</div><div>chien</div>", "Hund\ndog\nchien", Dropped{}},
		{"br", "line 1<br>line 2<br/>", "line 1\nline 2", Dropped{}},
		{"image resolved", `<img src="hund.jpg" alt="ein Hund">`, "![ein Hund](media:m1)", Dropped{}},
		{"image missing", `see <img src="katze.png">`, "see", Dropped{"image": 1}},
		{"sound", "[sound:hund bellt.mp3] [sound:missing.ogg]", "[sound:m2]", Dropped{"sound": 1}},
		{"font and style", `<font color="red">rot</font> <span style="color:red" class="de">x</span>`, `rot <span class="de">x</span>`, Dropped{"tag:font": 1, "attribute:style": 1}},
		{"script dropped", `a<script>alert(1)</script>b`, "ab", Dropped{"tag:script": 1}},
		{"markdown chars stay text", `2*3 = 6 and a_b [x] &lt;tag&gt; & ~`, `2\*3 = 6 and a\_b \[x\] &lt;tag> &amp; \~`, Dropped{}},
		{"list", "Colours:<ul><li>red</li><li><b>blue</b></li></ul>done", "Colours:\n\n- red\n- <b>blue</b>\n\ndone", Dropped{}},
		{"ordered list", "<ol><li>one</li><li>two</li></ol>", "1. one\n2. two", Dropped{}},
		{"table", `<table style="x"><tr><td colspan="2">a</td></tr><tr><td>b</td><td onclick="x">c</td></tr></table>`, `<table><tr><td colspan="2">a</td></tr><tr><td>b</td><td>c</td></tr></table>`, Dropped{"attribute:style": 1, "attribute:onclick": 1}},
		{"ruby", "<ruby>日本<rt>にほん</rt></ruby>", "<ruby>日本<rt>にほん</rt></ruby>", Dropped{}},
		{"link", `<a href="https://example.org/a(b)">site</a> <a href="javascript:x">no</a>`, "[site](https://example.org/a%28b%29) no", Dropped{"link": 1}},
		{"leading markdown block", "# not a heading", `\# not a heading`, Dropped{}},
		{"heading", "<h2>Title</h2>text", "## Title\n\ntext", Dropped{}},
		{"unclosed", "<b>bold <i>both", "<b>bold <i>both</i></b>", Dropped{}},
		{"pre", "<pre>a  *b*\n c</pre>", "<pre>a  *b*\n c</pre>", Dropped{}},
	}
	for _, c := range cases {
		d := Dropped{}
		got := FromAnkiHTML(c.in, media, d)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if !maps.Equal(d, c.dropped) {
			t.Errorf("%s: dropped %v, want %v", c.name, d, c.dropped)
		}
	}
}

func TestPlainToHTMLRoundTrip(t *testing.T) {
	if got := FromAnkiHTML(PlainToHTML("a < b\nc & d"), nil, nil); got != "a &lt; b\nc &amp; d" {
		t.Errorf("got %q", got)
	}
}

func FuzzFromAnkiHTML(f *testing.F) {
	f.Add(`<b>x</b><div><img src="a.jpg"></div>[sound:b.mp3]<table><tr><td>1`)
	f.Add(strings.Repeat("<ul><li>", 200))
	f.Add("<script>" + strings.Repeat("<script>", 100))
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			return
		}
		start := time.Now()
		out := FromAnkiHTML(s, func(string) (string, bool) { return "id", true }, nil)
		if len(out) > 8*len(s)+64 {
			t.Fatalf("output %d bytes from %d", len(out), len(s))
		}
		if strings.Contains(strings.ToLower(out), "<script") {
			t.Fatalf("script survived: %q", out)
		}
		if time.Since(start) > time.Second {
			t.Fatalf("slow: %v", time.Since(start))
		}
	})
}
