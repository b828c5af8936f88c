package notes

import (
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// MaxClozeDepth bounds nested clozes ({{c1::a {{c2::b}}}}).
const MaxClozeDepth = 16

// MaxClozeOrd is the largest cloze number read; Anki's own limit is far
// lower in practice, and each number makes a card.
const MaxClozeOrd = 500

// cnode is a piece of cloze text: plain text, or a deletion with its
// number, content and optional hint.
type cnode struct {
	text     string
	ord      int // 0 for text
	children []cnode
	hint     string
}

// parseCloze reads "{{cN::text}}" and "{{cN::text::hint}}" deletions,
// nested ones included. Anything else, an unterminated deletion too, is
// text.
func parseCloze(s string) []cnode {
	nodes, _, _ := parseClozeAt(s, 0, 0)
	return nodes
}

// parseClozeAt parses from pos; inside a deletion (depth > 0) it stops at
// the closing "}}" or at a "::" that starts the hint, which it reports.
func parseClozeAt(s string, pos, depth int) (nodes []cnode, next int, stop string) {
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, cnode{text: text.String()})
			text.Reset()
		}
	}
	for pos < len(s) {
		if depth > 0 && strings.HasPrefix(s[pos:], "}}") {
			flush()
			return nodes, pos + 2, "}}"
		}
		if depth > 0 && strings.HasPrefix(s[pos:], "::") {
			flush()
			return nodes, pos + 2, "::"
		}
		if ord, body, ok := clozeOpen(s, pos); ok && depth < MaxClozeDepth {
			children, after, stop := parseClozeAt(s, body, depth+1)
			hint := ""
			if stop == "::" {
				end := strings.Index(s[after:], "}}")
				if end < 0 {
					stop = ""
				} else {
					hint, after, stop = s[after:after+end], after+end+2, "}}"
				}
			}
			if stop == "}}" {
				flush()
				nodes = append(nodes, cnode{ord: ord, children: children, hint: hint})
				pos = after
				continue
			}
			// Unterminated: the opening is text.
		}
		text.WriteByte(s[pos])
		pos++
	}
	flush()
	return nodes, pos, ""
}

// clozeOpen recognises "{{cN::" at pos, returning N and where the
// deletion's content starts.
func clozeOpen(s string, pos int) (ord, body int, ok bool) {
	if !strings.HasPrefix(s[pos:], "{{c") && !strings.HasPrefix(s[pos:], "{{C") {
		return 0, 0, false
	}
	i := pos + 3
	j := i
	for j < len(s) && j-i < 4 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || !strings.HasPrefix(s[j:], "::") {
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[i:j])
	if err != nil || n < 1 || n > MaxClozeOrd {
		return 0, 0, false
	}
	return n, j + 2, true
}

// ClozeNumbers returns the cloze numbers used in s, ascending.
func ClozeNumbers(s string) []int {
	var out []int
	var walk func([]cnode)
	walk = func(ns []cnode) {
		for _, n := range ns {
			if n.ord > 0 {
				if !slices.Contains(out, n.ord) {
					out = append(out, n.ord)
				}
				walk(n.children)
			}
		}
	}
	walk(parseCloze(s))
	slices.Sort(out)
	return out
}

// RenderCloze renders s for cloze card ord: on the question the
// deletions numbered ord show "[...]" (or "[hint]"), on the answer their
// text, marked with <span class="cloze">; other deletions show their text.
func RenderCloze(s string, ord int, answer bool) string {
	var b strings.Builder
	renderCloze(&b, parseCloze(s), ord, answer)
	return b.String()
}

func renderCloze(b *strings.Builder, ns []cnode, ord int, answer bool) {
	for _, n := range ns {
		switch {
		case n.ord == 0:
			b.WriteString(n.text)
		case n.ord == ord && !answer:
			hint := "..."
			if n.hint != "" {
				hint = n.hint
			}
			b.WriteString(`<span class="` + contracts.ClozeClass + `">[` + hint + `]</span>`)
		case n.ord == ord:
			b.WriteString(`<span class="` + contracts.ClozeClass + `">`)
			renderCloze(b, n.children, ord, answer)
			b.WriteString(`</span>`)
		default:
			renderCloze(b, n.children, ord, answer)
		}
	}
}

// clozeOnly is the text of the deletions numbered ord, joined by ", "
// (Anki's cloze-only filter, used by {{type:cloze:F}}).
func clozeOnly(s string, ord int) string {
	var parts []string
	var walk func([]cnode)
	walk = func(ns []cnode) {
		for _, n := range ns {
			if n.ord == ord {
				var b strings.Builder
				renderCloze(&b, n.children, -1, true)
				parts = append(parts, b.String())
			} else if n.ord > 0 {
				walk(n.children)
			}
		}
	}
	walk(parseCloze(s))
	return strings.Join(parts, ", ")
}
