package notes

import (
	"strconv"
	"strings"

	"github.com/gorilla/css/scanner"
)

// MaxCSSLen bounds the CSS of a note type that ScopeCSS reads; a longer
// stylesheet is not applied at all.
const MaxCSSLen = 64 << 10

// maxCSSNesting bounds the @media blocks ScopeCSS keeps inside one another.
const maxCSSNesting = 2

// ScopeCSS makes a note type's CSS (a package's, so untrusted) safe to
// apply to its cards in a page: every selector is confined to the
// elements inside the container matched by scope (a simple class
// selector such as ".nt-card"): Anki's .card, and html, body and :root,
// become the container itself, any other selector is prefixed with it,
// and a selector reaching the container's siblings (+ or ~ right after
// it) is dropped. Card styles stay inside the card's box whatever they
// say: a rule for the container itself keeps only containerProperties
// (its text and background: nothing that moves it, sizes it, stacks it,
// undoes its containment or paints outside it), and a rule for the
// elements inside loses position: fixed and sticky, contain and big
// z-indexes. Nothing may load: url() and image functions, @import,
// @font-face and every at-rule but @media are dropped, and so is anything
// written with CSS escapes (which could spell them). Only the style
// rules, inside @media or not, with plain declarations are kept; the
// result is "" when nothing is left or the CSS is over MaxCSSLen.
func ScopeCSS(css, scope string) string {
	if len(css) > MaxCSSLen || strings.TrimSpace(css) == "" {
		return ""
	}
	var toks []*scanner.Token
	s := scanner.New(css)
	for {
		t := s.Next()
		if t.Type == scanner.TokenEOF || t.Type == scanner.TokenError {
			break
		}
		if t.Type == scanner.TokenComment || t.Type == scanner.TokenCDO || t.Type == scanner.TokenCDC || t.Type == scanner.TokenBOM {
			continue
		}
		toks = append(toks, t)
	}
	var b strings.Builder
	scopeRules(&b, toks, scope, 0)
	return strings.TrimSpace(b.String())
}

// isChar reports whether t is the delimiter c.
func isChar(t *scanner.Token, c string) bool { return t.Type == scanner.TokenChar && t.Value == c }

// nextAt returns the index of the first token at or after i that is one
// of the delimiters stop at bracket depth 0, or len(toks).
func nextAt(toks []*scanner.Token, i int, stop ...string) int {
	depth := 0
	for ; i < len(toks); i++ {
		t := toks[i]
		if depth == 0 {
			for _, c := range stop {
				if isChar(t, c) {
					return i
				}
			}
		}
		switch {
		case t.Type == scanner.TokenFunction, isChar(t, "("), isChar(t, "["):
			depth++
		case isChar(t, ")"), isChar(t, "]"):
			depth = max(depth-1, 0)
		}
	}
	return i
}

// blockEnd returns the index of the "}" closing the block whose "{" is at
// open, or len(toks) when it is never closed.
func blockEnd(toks []*scanner.Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case isChar(toks[i], "{"):
			depth++
		case isChar(toks[i], "}"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// scopeRules writes the rules of toks that are kept, scoped.
func scopeRules(b *strings.Builder, toks []*scanner.Token, scope string, nesting int) {
	for i := 0; i < len(toks); {
		if toks[i].Type == scanner.TokenS || isChar(toks[i], ";") || isChar(toks[i], "}") {
			i++
			continue
		}
		head := nextAt(toks, i, "{", ";")
		if head == len(toks) {
			return // a rule without a block at the end: dropped
		}
		if isChar(toks[head], ";") {
			i = head + 1 // @import, @charset, @namespace, or junk: dropped
			continue
		}
		end := blockEnd(toks, head)
		prelude, body := toks[i:head], toks[head+1:min(end, len(toks))]
		i = end + 1
		if end == len(toks) {
			return // an unclosed block: dropped with what follows
		}
		if len(prelude) == 0 {
			continue
		}
		if prelude[0].Type == scanner.TokenAtKeyword {
			if strings.EqualFold(prelude[0].Value, "@media") && nesting < maxCSSNesting && plain(prelude[1:]) {
				var inner strings.Builder
				scopeRules(&inner, body, scope, nesting+1)
				if inner.Len() > 0 {
					b.WriteString("@media " + text(prelude[1:]) + " {\n" + inner.String() + "}\n")
				}
			}
			continue
		}
		own, inner := scopeSelectors(prelude, scope)
		if own != "" {
			if decls := declarations(body, true); decls != "" {
				b.WriteString(own + " { " + decls + " }\n")
			}
		}
		if inner != "" {
			if decls := declarations(body, false); decls != "" {
				b.WriteString(inner + " { " + decls + " }\n")
			}
		}
	}
}

// plain reports whether tokens hold nothing that could load or smuggle
// anything: no url() or other loading function, no at-keyword, no block,
// no CSS escape, no "<" (the CSS is served as a stylesheet, never inline,
// but it never carries markup either).
func plain(toks []*scanner.Token) bool {
	for _, t := range toks {
		switch {
		case t.Type == scanner.TokenURI, t.Type == scanner.TokenAtKeyword, t.Type == scanner.TokenError:
			return false
		case strings.Contains(t.Value, `\`):
			return false
		case isChar(t, "{"), isChar(t, "}"), isChar(t, "<"):
			return false
		case t.Type == scanner.TokenFunction && loadingFunctions[strings.ToLower(t.Value)]:
			return false
		}
	}
	return true
}

// loadingFunctions are the CSS functions that can fetch something or run
// script in some browser.
var loadingFunctions = map[string]bool{
	"url(": true, "src(": true, "image(": true, "image-set(": true, "-webkit-image-set(": true, "cross-fade(": true,
	"-webkit-cross-fade(": true, "element(": true, "-moz-element(": true, "expression(": true, "paint(": true,
}

// droppedProperties are properties that load or run something in some
// browser.
var droppedProperties = map[string]bool{"behavior": true, "-moz-binding": true, "-ms-behavior": true}

// text is tokens as CSS, whitespace collapsed to one space.
func text(toks []*scanner.Token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.Type == scanner.TokenS {
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
			continue
		}
		b.WriteString(t.Value)
	}
	return strings.TrimSpace(b.String())
}

// declarations returns a rule's kept declarations ("a: b; c: d;"): each
// a property and a plain value. For a rule of the container itself
// (container), only containerProperties are kept; for any other rule,
// what could lift an element out of the container is dropped.
func declarations(body []*scanner.Token, container bool) string {
	var out []string
	for i := 0; i < len(body); {
		end := nextAt(body, i, ";")
		d := body[i:end]
		i = end + 1
		for len(d) > 0 && d[0].Type == scanner.TokenS {
			d = d[1:]
		}
		if len(d) < 3 || d[0].Type != scanner.TokenIdent || droppedProperties[strings.ToLower(d[0].Value)] || !plain(d) {
			continue
		}
		colon := 1
		for colon < len(d) && d[colon].Type == scanner.TokenS {
			colon++
		}
		if colon >= len(d) || !isChar(d[colon], ":") {
			continue
		}
		prop, v := strings.ToLower(d[0].Value), text(d[colon+1:])
		if v == "" || (container && !containerProperties[prop]) || (!container && !insideOnly(prop, v)) {
			continue
		}
		out = append(out, d[0].Value+": "+v+";")
	}
	return strings.Join(out, " ")
}

// containerProperties are the properties a note type's CSS may set on the
// card's container itself: how its text and background look, never its
// place, size, stacking, containment, outline or shadow (which paint
// outside its box), nor generated content. The page's own rules keep the
// container where the page put it, with its paint containment, which
// clips whatever the card's elements say.
var containerProperties = map[string]bool{
	"color": true, "background": true, "background-color": true,
	"font": true, "font-family": true, "font-size": true, "font-style": true, "font-weight": true, "font-variant": true,
	"font-stretch": true, "font-feature-settings": true, "line-height": true, "letter-spacing": true, "word-spacing": true,
	"text-align": true, "text-align-last": true, "text-indent": true, "text-transform": true, "text-decoration": true,
	"text-decoration-color": true, "text-decoration-line": true, "text-decoration-style": true, "text-shadow": true,
	"white-space": true, "word-break": true, "overflow-wrap": true, "word-wrap": true, "hyphens": true,
	"direction": true, "border-color": true, "border-radius": true, "border-style": true,
	"-webkit-text-size-adjust": true, "text-size-adjust": true,
}

// maxZIndex bounds the z-index an element inside a card may have (inside
// the container's own stacking context it orders the card's elements
// only; a bigger one has no use there).
const maxZIndex = 10

// insideOnly reports whether the declaration prop: v keeps an element
// inside the card's container: no fixed or sticky position (placed by the
// viewport, not the card), no containment of its own, no z-index beyond
// ±maxZIndex.
func insideOnly(prop, v string) bool {
	v = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(v)), "!important")))
	switch {
	case prop == "contain", prop == "content-visibility", prop == "container", prop == "container-type":
		return false
	case prop == "position":
		return v != "fixed" && v != "sticky" && v != "-webkit-sticky"
	case prop == "z-index":
		n, err := strconv.Atoi(v)
		return v == "auto" || (err == nil && n >= -maxZIndex && n <= maxZIndex)
	}
	return true
}

// rootCompounds are selectors Anki's CSS uses for the card as a whole.
var rootCompounds = map[string]bool{".card": true, "html": true, "body": true, ":root": true}

// scopeSelectors returns a rule's selectors confined to scope, split in
// those that match the container itself (own: its state, its pseudo
// elements) and those that match elements inside it (inner); each "" when
// none is kept.
func scopeSelectors(prelude []*scanner.Token, scope string) (own, inner string) {
	if !plain(prelude) {
		return "", ""
	}
	var owns, inners []string
	for i := 0; i <= len(prelude); {
		end := nextAt(prelude, i, ",")
		sel := text(prelude[i:min(end, len(prelude))])
		i = end + 1
		if sel == "" {
			continue
		}
		scoped := ""
		for rest := sel; ; {
			head, tail := firstCompound(rest)
			lower := strings.ToLower(head)
			switch {
			case rootCompounds[lower] && tail != "":
				rest = tail
				continue
			case rootCompounds[lower]:
				scoped = scope
			case strings.HasPrefix(lower, ".card") && len(head) > len(".card") && strings.ContainsRune(".:[#", rune(head[len(".card")])):
				scoped = strings.TrimSpace(scope + head[len(".card"):] + " " + tail) // .card.x, .card:hover: the container itself
			default:
				scoped = scope + " " + rest
			}
			break
		}
		switch _, tail := firstCompound(scoped); {
		case strings.HasPrefix(tail, "+") || strings.HasPrefix(tail, "~"):
			continue // the container's siblings are outside it
		case tail == "":
			owns = append(owns, scoped)
		default:
			inners = append(inners, scoped)
		}
	}
	return strings.Join(owns, ", "), strings.Join(inners, ", ")
}

// firstCompound splits a selector after its first compound selector: the
// part before the first whitespace or combinator at bracket depth 0.
func firstCompound(sel string) (head, tail string) {
	depth := 0
	for i, r := range sel {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ' ', '>', '+', '~':
			if depth == 0 {
				return sel[:i], strings.TrimLeft(sel[i:], " ")
			}
		}
	}
	return sel, ""
}
