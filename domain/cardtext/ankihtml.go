package cardtext

import (
	"html"
	"net/url"
	"regexp"
	"strings"

	nethtml "golang.org/x/net/html"
)

// MediaResolver maps a media file name that Anki content refers to
// (<img src="…">, [sound:…]) to a media id; ok is false when no such file
// came with the content.
type MediaResolver func(name string) (id string, ok bool)

// Dropped counts what a conversion left out, by kind: "image" and "sound"
// (media references without a file), "tag:NAME" (markup not in the
// content allow-list; its text is kept unless the tag is script or
// style), "attribute:NAME", "link" (a link that is not http or https;
// its text is kept).
type Dropped map[string]int

// Add adds the counts of o.
func (d Dropped) Add(o Dropped) {
	for k, v := range o {
		d[k] += v
	}
}

// Inline tags kept as HTML, with the attributes each may keep.
var inlineTags = map[string]map[string]bool{
	"b": nil, "i": nil, "u": nil, "s": nil, "sub": nil, "sup": nil, "code": nil,
	"span": {"class": true}, "ruby": nil, "rt": nil, "rp": nil,
}

// Tags renamed to their allowed equivalent.
var renamed = map[string]string{"strong": "b", "em": "i", "strike": "s", "del": "s", "ins": "u", "tt": "code", "kbd": "code", "samp": "code", "var": "i", "cite": "i", "mark": "u"}

// Tags whose content is dropped with them.
var dropWithContent = map[string]bool{"script": true, "style": true, "head": true, "title": true, "noscript": true, "template": true, "iframe": true, "object": true, "svg": true, "math": true, "audio": true, "video": true, "button": true, "select": true, "textarea": true}

// Tags that only separate lines.
var lineBlocks = map[string]bool{"div": true, "p": true, "section": true, "article": true, "header": true, "footer": true, "center": true, "dd": true, "dt": true, "dl": true, "figure": true, "figcaption": true, "main": true, "nav": true, "aside": true, "address": true, "details": true, "summary": true, "body": true, "html": true}

// maxListIndent bounds the indentation of nested lists.
const maxListIndent = 8

var soundRE = regexp.MustCompile(`\[sound:([^\]]+)\]`)

// FromAnkiHTML converts Anki field HTML into the card content format:
// Markdown holding inline HTML from the allow-list. Bold, italics,
// underline, sub/superscript, ruby and spans (with their class) stay
// inline HTML; <div>, <p> and <br> become line breaks (<br> inside
// tables and lists); lists become
// Markdown lists, headings Markdown headings, links Markdown links (http
// and https only), tables and block quotes HTML blocks; images become
// ![alt](media:ID) and [sound:NAME] becomes [sound:ID] when media
// resolves the file name. Entities are decoded; Markdown's special
// characters in text are escaped so they stay text. What is left out is
// counted in dropped (which may be nil).
func FromAnkiHTML(s string, media MediaResolver, dropped Dropped) string {
	if dropped == nil {
		dropped = Dropped{}
	}
	c := &converter{media: media, dropped: dropped, lineHead: true}
	z := nethtml.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			break
		}
		tok := z.Token()
		c.token(tok)
	}
	c.closeAll()
	return c.result()
}

type converter struct {
	media    MediaResolver
	dropped  Dropped
	out      strings.Builder
	skip     int      // inside script/style…
	skipTag  []string // the tags being skipped
	open     []string // inline tags open in out
	lists    []string // open lists: "ul" or "ol"
	counters []int
	pre      int // inside <pre>
	table    int // inside <table>
	link     []string
	brk      bool // a line break is pending
	lineHead bool // the next text starts a Markdown line
}

func (c *converter) token(tok nethtml.Token) {
	name := tok.Data
	if tok.Type == nethtml.StartTagToken || tok.Type == nethtml.EndTagToken || tok.Type == nethtml.SelfClosingTagToken {
		name = strings.ToLower(name)
	}
	if c.skip > 0 {
		switch {
		case tok.Type == nethtml.StartTagToken && dropWithContent[name]:
			c.skip++
		case tok.Type == nethtml.EndTagToken && dropWithContent[name]:
			c.skip--
		}
		return
	}
	switch tok.Type {
	case nethtml.TextToken:
		c.text(tok.Data)
	case nethtml.CommentToken, nethtml.DoctypeToken:
	case nethtml.StartTagToken, nethtml.SelfClosingTagToken:
		c.start(name, tok.Attr, tok.Type == nethtml.SelfClosingTagToken)
	case nethtml.EndTagToken:
		c.end(name)
	}
}

func (c *converter) start(name string, attrs []nethtml.Attribute, selfClosing bool) {
	if r, ok := renamed[name]; ok {
		name = r
	}
	switch {
	case dropWithContent[name]:
		c.dropped["tag:"+name]++
		if !selfClosing {
			c.skip++
		}
	case name == "br":
		c.lineBreak()
	case lineBlocks[name]:
		c.countAttrs(attrs, nil)
		c.lineBreak()
	case name == "img":
		c.image(attrs)
	case name == "a":
		href := attr(attrs, "href")
		if u, err := url.Parse(href); err == nil && (u.Scheme == "http" || u.Scheme == "https") && c.table == 0 {
			c.flushBreak()
			c.out.WriteString("[")
			c.link = append(c.link, href)
		} else {
			if href != "" {
				c.dropped["link"]++
			}
			c.link = append(c.link, "")
		}
	case inlineTags[name] != nil || hasKey(inlineTags, name):
		c.flushBreak()
		c.out.WriteString("<" + name)
		allowed := inlineTags[name]
		for _, a := range attrs {
			if allowed[strings.ToLower(a.Key)] && safeClass(a.Val) {
				c.out.WriteString(` ` + strings.ToLower(a.Key) + `="` + html.EscapeString(a.Val) + `"`)
			} else {
				c.dropped["attribute:"+strings.ToLower(a.Key)]++
			}
		}
		c.out.WriteString(">")
		c.open = append(c.open, name)
	case name == "ul" || name == "ol":
		c.countAttrs(attrs, nil)
		c.closeInline()
		c.blockBreak()
		c.lists = append(c.lists, name)
		c.counters = append(c.counters, 0)
	case name == "li":
		c.countAttrs(attrs, nil)
		c.closeInline()
		c.trimTrailingBreak()
		if len(c.lists) == 0 {
			c.lists, c.counters = append(c.lists, "ul"), append(c.counters, 0)
		}
		d := len(c.lists) - 1
		c.counters[d]++
		c.newline()
		c.out.WriteString(strings.Repeat("   ", min(d, maxListIndent)))
		if c.lists[d] == "ol" {
			c.out.WriteString(itoa(c.counters[d]) + ". ")
		} else {
			c.out.WriteString("- ")
		}
		c.brk, c.lineHead = false, false
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		c.closeInline()
		c.blockBreak()
		c.out.WriteString(strings.Repeat("#", int(name[1]-'0')) + " ")
		c.brk, c.lineHead = false, false
	case name == "hr":
		c.closeInline()
		c.blockBreak()
		c.out.WriteString("<hr>\n\n")
		c.countAttrs(attrs, nil)
		c.brk, c.lineHead = false, true
	case name == "table" || name == "blockquote" || name == "pre":
		c.countAttrs(attrs, nil)
		c.closeInline()
		c.blockBreak()
		c.out.WriteString("<" + name + ">")
		c.brk = false
		switch name {
		case "table":
			c.table++
		case "pre":
			c.pre++
		}
	case name == "thead" || name == "tbody" || name == "tfoot" || name == "tr" || name == "td" || name == "th" || name == "caption":
		if name == "tfoot" {
			name = "tbody"
		}
		if name == "caption" {
			c.dropped["tag:caption"]++
			return
		}
		if c.table == 0 {
			c.lineBreak()
			return
		}
		c.out.WriteString("<" + name)
		for _, a := range attrs {
			k := strings.ToLower(a.Key)
			if (name == "td" || name == "th") && (k == "colspan" || k == "rowspan") && isSmallInt(a.Val) {
				c.out.WriteString(` ` + k + `="` + a.Val + `"`)
			} else {
				c.dropped["attribute:"+k]++
			}
		}
		c.out.WriteString(">")
		c.brk = false
	default:
		c.dropped["tag:"+name]++
	}
}

func (c *converter) end(name string) {
	if r, ok := renamed[name]; ok {
		name = r
	}
	switch {
	case lineBlocks[name]:
		c.lineBreak()
	case name == "a":
		if n := len(c.link); n > 0 {
			href := c.link[n-1]
			c.link = c.link[:n-1]
			if href != "" {
				c.out.WriteString("](" + strings.ReplaceAll(strings.ReplaceAll(href, "(", "%28"), ")", "%29") + ")")
			}
		}
	case hasKey(inlineTags, name):
		for i := len(c.open) - 1; i >= 0; i-- {
			if c.open[i] == name {
				for j := len(c.open) - 1; j >= i; j-- {
					c.out.WriteString("</" + c.open[j] + ">")
				}
				c.open = c.open[:i]
				break
			}
		}
	case name == "ul" || name == "ol":
		c.closeInline()
		if n := len(c.lists); n > 0 {
			c.lists, c.counters = c.lists[:n-1], c.counters[:n-1]
		}
		if len(c.lists) == 0 {
			c.blockBreak()
		}
	case name == "li":
		c.closeInline()
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		c.closeInline()
		c.blockBreak()
	case name == "table" || name == "blockquote" || name == "pre":
		c.closeInline()
		c.out.WriteString("</" + name + ">\n\n")
		c.brk, c.lineHead = false, true
		switch name {
		case "table":
			c.table = max(0, c.table-1)
		case "pre":
			c.pre = max(0, c.pre-1)
		}
	case name == "thead" || name == "tbody" || name == "tfoot" || name == "tr" || name == "td" || name == "th":
		if name == "tfoot" {
			name = "tbody"
		}
		if c.table > 0 {
			c.closeInline()
			c.out.WriteString("</" + name + ">")
		}
	}
}

func (c *converter) image(attrs []nethtml.Attribute) {
	src := attr(attrs, "src")
	if c.media != nil && src != "" {
		name := src
		if u, err := url.PathUnescape(src); err == nil {
			name = u
		}
		if id, ok := c.media(name); ok {
			c.flushBreak()
			alt := strings.NewReplacer("[", "", "]", "", "\n", " ").Replace(attr(attrs, "alt"))
			c.out.WriteString("![" + alt + "](media:" + id + ")")
			return
		}
	}
	c.dropped["image"]++
}

// text writes text: whitespace runs collapsed (except in <pre>), sound
// references resolved, Markdown characters escaped.
func (c *converter) text(s string) {
	if c.pre > 0 {
		c.out.WriteString(html.EscapeString(s))
		return
	}
	s = strings.ReplaceAll(s, "\u00a0", " ")
	s = collapseSpace(s)
	if strings.TrimSpace(s) == "" {
		if s != "" && c.out.Len() > 0 && !c.brk && !c.lineHead && !strings.HasSuffix(c.out.String(), " ") {
			c.out.WriteString(" ")
		}
		return
	}
	if c.brk || c.lineHead {
		s = strings.TrimLeft(s, " ")
	}
	c.flushBreak()
	last := 0
	for _, m := range soundRE.FindAllStringSubmatchIndex(s, -1) {
		c.writeText(s[last:m[0]])
		name := s[m[2]:m[3]]
		if c.media != nil {
			if id, ok := c.media(name); ok {
				c.out.WriteString("[sound:" + id + "]")
				last = m[1]
				continue
			}
		}
		c.dropped["sound"]++
		last = m[1]
	}
	c.writeText(s[last:])
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `_`, `\_`, "`", "\\`", `[`, `\[`, `]`, `\]`, `<`, `&lt;`, `&`, `&amp;`, `~`, `\~`)

func (c *converter) writeText(s string) {
	if s == "" {
		return
	}
	if c.lineHead {
		// A line must not start a Markdown block by accident.
		if strings.IndexAny(s[:1], "#>-+=|") == 0 || orderedMarker(s) {
			c.out.WriteString(`\`)
		}
		c.lineHead = false
	}
	c.out.WriteString(mdEscaper.Replace(s))
}

// orderedMarker reports whether s starts like "12. " or "3) ".
func orderedMarker(s string) bool {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')')
}

// lineBreak asks for a line break before the next text.
func (c *converter) lineBreak() {
	if c.out.Len() > 0 && !c.lineHead {
		c.brk = true
	}
}

func (c *converter) flushBreak() {
	if c.brk {
		if c.table > 0 || len(c.lists) > 0 {
			c.out.WriteString("<br>")
		} else {
			// A line break in card text is a line break (the renderer
			// uses hard wraps), so none needs <br>.
			c.out.WriteString("\n")
			c.lineHead = true
		}
		c.brk = false
	}
}

func (c *converter) trimTrailingBreak() { c.brk = false }

// blockBreak ends the current block with a blank line.
func (c *converter) blockBreak() {
	c.brk = false
	if c.out.Len() == 0 {
		c.lineHead = true
		return
	}
	s := c.out.String()
	switch {
	case strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		c.out.WriteString("\n")
	default:
		c.out.WriteString("\n\n")
	}
	c.lineHead = true
}

func (c *converter) newline() {
	if c.out.Len() > 0 && !strings.HasSuffix(c.out.String(), "\n") {
		c.out.WriteString("\n")
	}
}

func (c *converter) closeInline() {
	for j := len(c.open) - 1; j >= 0; j-- {
		c.out.WriteString("</" + c.open[j] + ">")
	}
	c.open = c.open[:0]
}

func (c *converter) closeAll() {
	c.closeInline()
	for c.table > 0 {
		c.out.WriteString("</table>")
		c.table--
	}
	for c.pre > 0 {
		c.out.WriteString("</pre>")
		c.pre--
	}
}

func (c *converter) countAttrs(attrs []nethtml.Attribute, allowed map[string]bool) {
	for _, a := range attrs {
		if !allowed[strings.ToLower(a.Key)] {
			c.dropped["attribute:"+strings.ToLower(a.Key)]++
		}
	}
}

func (c *converter) result() string {
	s := c.out.String()
	s = strings.TrimRight(s, " \n")
	s = strings.TrimSuffix(s, "<br>")
	return strings.TrimSpace(s)
}

func attr(attrs []nethtml.Attribute, key string) string {
	for _, a := range attrs {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func hasKey(m map[string]map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

var classRE = regexp.MustCompile(`^[A-Za-z0-9_ -]{1,100}$`)

func safeClass(v string) bool { return classRE.MatchString(v) }

func isSmallInt(v string) bool {
	return len(v) > 0 && len(v) <= 3 && strings.Trim(v, "0123456789") == ""
}

func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// PlainToHTML turns plain text into the HTML Anki would show for it
// (special characters escaped, line breaks as <br>), so FromAnkiHTML can
// convert it like any field.
func PlainToHTML(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "\n", "<br>")
}
