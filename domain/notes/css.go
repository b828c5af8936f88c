package notes

import (
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
// it) is dropped. Nothing may load: url() and image functions, @import,
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
		sels := scopeSelectors(prelude, scope)
		decls := declarations(body)
		if sels != "" && decls != "" {
			b.WriteString(sels + " { " + decls + " }\n")
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
// a property and a plain value.
func declarations(body []*scanner.Token) string {
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
		if v := text(d[colon+1:]); v != "" {
			out = append(out, d[0].Value+": "+v+";")
		}
	}
	return strings.Join(out, " ")
}

// rootCompounds are selectors Anki's CSS uses for the card as a whole.
var rootCompounds = map[string]bool{".card": true, "html": true, "body": true, ":root": true}

// scopeSelectors returns a rule's selector list confined to scope, or ""
// when none of its selectors can be kept.
func scopeSelectors(prelude []*scanner.Token, scope string) string {
	if !plain(prelude) {
		return ""
	}
	var out []string
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
		if _, tail := firstCompound(scoped); strings.HasPrefix(tail, "+") || strings.HasPrefix(tail, "~") {
			continue // the container's siblings are outside it
		}
		out = append(out, scoped)
	}
	return strings.Join(out, ", ")
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
