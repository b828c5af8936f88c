package notes

import (
	"fmt"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// Template limits: a package brings its own templates, so parsing and
// rendering are bounded whatever they hold.
const (
	MaxTemplateLen   = 64 << 10 // bytes of one template side
	MaxTemplateDepth = 32       // nested {{#F}} / {{^F}} sections
	MaxTemplateNodes = 4096     // tags of one template side
)

// node is one piece of a parsed template: literal text, a field
// replacement (with filters, outermost first), or a conditional section.
type node struct {
	text     string   // literal text (kind nodeText)
	kind     nodeKind //
	field    string   // field name of a replacement or section
	filters  []string // e.g. ["text", "cloze"] for {{text:cloze:F}}
	children []node   // section body
}

type nodeKind int

const (
	nodeText nodeKind = iota
	nodeField
	nodeIf    // {{#F}} … {{/F}}
	nodeIfNot // {{^F}} … {{/F}}
)

// parsedTemplate is one template side, parsed.
type parsedTemplate []node

// parseTemplate parses Anki's template syntax: {{Field}}, {{filter:Field}}
// (filters chained right to left), {{#Field}}…{{/Field}},
// {{^Field}}…{{/Field}} and comments {{!…}}. It fails on an unclosed or
// mismatched section, an empty tag, or a template over the limits.
func parseTemplate(src string) (parsedTemplate, error) {
	if len(src) > MaxTemplateLen {
		return nil, fmt.Errorf("template is %d bytes; the limit is %d", len(src), MaxTemplateLen)
	}
	p := &parser{src: src}
	nodes, closing, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	if closing != "" {
		return nil, fmt.Errorf("{{/%s}} closes a section that was never opened", closing)
	}
	return nodes, nil
}

type parser struct {
	src   string
	pos   int
	count int
}

// parse reads nodes until the end or a closing tag, which it returns.
func (p *parser) parse(depth int) ([]node, string, error) {
	if depth > MaxTemplateDepth {
		return nil, "", fmt.Errorf("sections are nested more than %d deep", MaxTemplateDepth)
	}
	var out []node
	for p.pos < len(p.src) {
		open := strings.Index(p.src[p.pos:], "{{")
		if open < 0 {
			out = append(out, node{text: p.src[p.pos:]})
			p.pos = len(p.src)
			break
		}
		if open > 0 {
			out = append(out, node{text: p.src[p.pos : p.pos+open]})
		}
		start := p.pos + open + 2
		end := strings.Index(p.src[start:], "}}")
		if end < 0 {
			// Anki shows an unterminated tag as text.
			out = append(out, node{text: p.src[p.pos+open:]})
			p.pos = len(p.src)
			break
		}
		tag := strings.TrimSpace(p.src[start : start+end])
		p.pos = start + end + 2
		if p.count++; p.count > MaxTemplateNodes {
			return nil, "", fmt.Errorf("template has more than %d tags", MaxTemplateNodes)
		}
		if tag == "" {
			return nil, "", fmt.Errorf("empty {{}} tag")
		}
		switch tag[0] {
		case '!':
			continue
		case '/':
			return out, strings.TrimSpace(tag[1:]), nil
		case '#', '^':
			name := strings.TrimSpace(tag[1:])
			children, closing, err := p.parse(depth + 1)
			if err != nil {
				return nil, "", err
			}
			if closing != name {
				if closing == "" {
					return nil, "", fmt.Errorf("{{%s}} is never closed with {{/%s}}", tag, name)
				}
				return nil, "", fmt.Errorf("{{%s}} is closed by {{/%s}}", tag, closing)
			}
			kind := nodeIf
			if tag[0] == '^' {
				kind = nodeIfNot
			}
			out = append(out, node{kind: kind, field: name, children: children})
		default:
			parts := strings.Split(tag, ":")
			n := node{kind: nodeField, field: strings.TrimSpace(parts[len(parts)-1])}
			for _, f := range parts[:len(parts)-1] {
				n.filters = append(n.filters, strings.TrimSpace(f))
			}
			out = append(out, n)
		}
	}
	return out, "", nil
}

// fieldRefs calls fn for every field name the template refers to.
func (t parsedTemplate) fieldRefs(fn func(name string, filters []string)) {
	var walk func([]node)
	walk = func(ns []node) {
		for _, n := range ns {
			switch n.kind {
			case nodeField:
				fn(n.field, n.filters)
			case nodeIf, nodeIfNot:
				fn(n.field, nil)
				walk(n.children)
			}
		}
	}
	walk(t)
}

// renderCtx is what a template renders with.
type renderCtx struct {
	fields    map[string]string // field name → content (Anki HTML)
	special   map[string]string // Tags, Type, Deck, Subdeck, Card, FrontSide
	clozeOrd  int               // 1-based cloze number of the card; 0 for a standard card
	answer    bool              // rendering the answer side
	nonEmpty  bool              // set when a non-empty note field was rendered
	maxOutput int
}

// value is a field's or special field's content, and whether it exists.
func (c *renderCtx) value(name string) (string, bool) {
	if v, ok := c.fields[name]; ok {
		return v, true
	}
	v, ok := c.special[name]
	return v, ok
}

func (c *renderCtx) render(ns []node, b *strings.Builder) error {
	for _, n := range ns {
		if b.Len() > c.maxOutput {
			return fmt.Errorf("rendered card is over %d bytes", c.maxOutput)
		}
		switch n.kind {
		case nodeText:
			b.WriteString(n.text)
		case nodeIf, nodeIfNot:
			v, _ := c.value(n.field)
			if FieldEmpty(v) == (n.kind == nodeIfNot) {
				if err := c.render(n.children, b); err != nil {
					return err
				}
			}
		case nodeField:
			v, ok := c.value(n.field)
			if !ok {
				return fmt.Errorf("the template refers to a field %q the note type does not have", n.field)
			}
			if _, isField := c.fields[n.field]; isField && !FieldEmpty(v) && !hasFilter(n.filters, "type") {
				c.nonEmpty = true
			}
			b.WriteString(c.applyFilters(n.filters, v))
		}
	}
	return nil
}

func hasFilter(filters []string, name string) bool {
	for _, f := range filters {
		if f == name {
			return true
		}
	}
	return false
}

// applyFilters applies filters right to left (the innermost first), as
// Anki does. Unknown filters pass the text through unchanged.
func (c *renderCtx) applyFilters(filters []string, v string) string {
	for i := len(filters) - 1; i >= 0; i-- {
		switch f := filters[i]; {
		case f == "cloze":
			v = RenderCloze(v, c.clozeOrd, c.answer)
		case f == "cloze-only":
			v = clozeOnly(v, c.clozeOrd)
		case f == "text":
			v = StripHTML(v)
		case f == "hint":
			if !FieldEmpty(v) {
				v = `<span class="hint">` + v + `</span>`
			}
		case f == "type":
			// The question marks where the typing box goes; the answer
			// holds the expected answer, which the study view compares with
			// what was typed (contracts.TypeInClass, TypeAnswerClass).
			if !c.answer {
				v = `<span class="` + contracts.TypeInClass + `"></span>`
			} else {
				v = `<span class="` + contracts.TypeAnswerClass + `">` + v + `</span>`
			}
		case f == "furigana":
			v = furigana(v, true, true)
		case f == "kanji":
			v = furigana(v, true, false)
		case f == "kana":
			v = furigana(v, false, true)
		case strings.HasPrefix(f, "tts"):
			// Text to speech needs a voice we do not have; keep the text.
		}
	}
	return v
}

// furigana renders Anki's "base[reading]" ruby syntax.
func furigana(s string, base, reading bool) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '[')
		if open < 0 {
			b.WriteString(s)
			return b.String()
		}
		closeAt := strings.IndexByte(s[open:], ']')
		if closeAt < 0 {
			b.WriteString(s)
			return b.String()
		}
		closeAt += open
		// The base runs back from '[' to the previous space.
		// (Anki drops the one space before the base.)
		start := strings.LastIndexByte(s[:open], ' ') + 1
		if start > 0 {
			b.WriteString(s[:start-1])
		}
		word, read := s[start:open], s[open+1:closeAt]
		if strings.HasPrefix(read, "sound:") {
			b.WriteString(s[start : closeAt+1])
		} else {
			switch {
			case base && reading:
				b.WriteString("<ruby>" + word + "<rt>" + read + "</rt></ruby>")
			case base:
				b.WriteString(word)
			default:
				b.WriteString(read)
			}
		}
		s = s[closeAt+1:]
	}
}
