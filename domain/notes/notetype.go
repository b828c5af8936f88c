// Package notes is the note model: note types with fields and card
// templates (Anki's template syntax, cloze deletions included), the stock
// types, and the generation of a note's cards. It is pure: the rendered
// sides are Anki HTML, which cardtext turns into the card content format.
package notes

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
)

// Kind says how a note type makes cards.
type Kind string

// The kinds.
const (
	KindStandard Kind = "standard" // one card per template whose question is not empty
	KindCloze    Kind = "cloze"    // one card per cloze number, from its single template
)

// Limits of a note type.
const (
	MaxFields    = 64
	MaxTemplates = 64
	MaxNameLen   = 200
	// MaxRenderedLen bounds one rendered side (Anki HTML, before conversion).
	MaxRenderedLen = 1 << 20
)

// Template is one card template: question and answer sides in Anki's
// template syntax.
type Template struct {
	Name  string `json:"name"`
	Front string `json:"front"`
	Back  string `json:"back"`
}

// Type is a note type: named fields and card templates.
type Type struct {
	Name      string     `json:"name"`
	Kind      Kind       `json:"kind"`
	Fields    []string   `json:"fields"`
	Templates []Template `json:"templates"`
	CSS       string     `json:"css,omitempty"`
}

// The stock note type names, as Anki names them.
const (
	Basic            = "Basic"
	BasicReversed    = "Basic (and reversed card)"
	BasicOptReversed = "Basic (optional reversed card)"
	BasicTypeIn      = "Basic (type in the answer)"
	Cloze            = "Cloze"
)

// Stock returns the stock note types, in Anki's order.
func Stock() []Type {
	front := Template{Name: "Card 1", Front: "{{Front}}", Back: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}"}
	reverse := Template{Name: "Card 2", Front: "{{Back}}", Back: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}"}
	return []Type{
		{Name: Basic, Kind: KindStandard, Fields: []string{"Front", "Back"}, Templates: []Template{front}},
		{Name: BasicReversed, Kind: KindStandard, Fields: []string{"Front", "Back"}, Templates: []Template{front, reverse}},
		{Name: BasicOptReversed, Kind: KindStandard, Fields: []string{"Front", "Back", "Add Reverse"}, Templates: []Template{front,
			{Name: "Card 2", Front: "{{#Add Reverse}}{{Back}}{{/Add Reverse}}", Back: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}"}}},
		{Name: BasicTypeIn, Kind: KindStandard, Fields: []string{"Front", "Back"}, Templates: []Template{
			{Name: "Card 1", Front: "{{Front}}\n\n{{type:Back}}", Back: "{{Front}}\n\n<hr id=answer>\n\n{{type:Back}}"}}},
		{Name: Cloze, Kind: KindCloze, Fields: []string{"Text", "Back Extra"}, Templates: []Template{
			{Name: "Cloze", Front: "{{cloze:Text}}", Back: "{{cloze:Text}}<br>\n{{Back Extra}}"}}},
	}
}

// stockAliases are other names Anki and its translations give the stock
// types, lower-cased.
var stockAliases = map[string]string{
	"basic": Basic, "einfach": Basic, "basique": Basic, "básico": Basic, "basico": Basic, "base": Basic,
	"basic (and reversed card)": BasicReversed, "basic (and reversed)": BasicReversed, "basic and reversed": BasicReversed,
	"einfach (beide richtungen)": BasicReversed, "basique (avec carte inversée)": BasicReversed,
	"basic (optional reversed card)": BasicOptReversed, "basic (optional reversed)": BasicOptReversed,
	"einfach (optional umgedrehte karte)": BasicOptReversed,
	"basic (type in the answer)":          BasicTypeIn, "basic (type in answer)": BasicTypeIn,
	"einfach (antwort eintippen)": BasicTypeIn,
	"cloze":                       Cloze, "lückentext": Cloze, "texte à trous": Cloze, "texto con huecos": Cloze,
}

// StockByName returns the stock type with this name (Anki's English name
// or a common translation, case-insensitively).
func StockByName(name string) (Type, bool) {
	canon, ok := stockAliases[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Type{}, false
	}
	for _, t := range Stock() {
		if t.Name == canon {
			return t, true
		}
	}
	return Type{}, false
}

// Validate checks a note type: a name, 1-MaxFields distinct non-empty
// field names without template syntax characters, 1-MaxTemplates
// templates that parse and name only its fields, and a cloze type with
// exactly one template using a cloze filter.
func (t Type) Validate() error {
	if n := utf8.RuneCountInString(strings.TrimSpace(t.Name)); n == 0 || n > MaxNameLen {
		return fmt.Errorf("a note type needs a name of 1-%d characters", MaxNameLen)
	}
	if t.Kind != KindStandard && t.Kind != KindCloze {
		return fmt.Errorf("note type %q: kind must be %q or %q", t.Name, KindStandard, KindCloze)
	}
	if len(t.Fields) == 0 || len(t.Fields) > MaxFields {
		return fmt.Errorf("note type %q has %d fields; give 1-%d", t.Name, len(t.Fields), MaxFields)
	}
	seen := map[string]bool{}
	for _, f := range t.Fields {
		if strings.TrimSpace(f) == "" || strings.ContainsAny(f, "{}:#^/") || utf8.RuneCountInString(f) > MaxNameLen {
			return fmt.Errorf("note type %q: field name %q must be 1-%d characters without { } : # ^ /", t.Name, f, MaxNameLen)
		}
		if seen[f] {
			return fmt.Errorf("note type %q names the field %q twice", t.Name, f)
		}
		seen[f] = true
	}
	if len(t.Templates) == 0 || len(t.Templates) > MaxTemplates {
		return fmt.Errorf("note type %q has %d templates; give 1-%d", t.Name, len(t.Templates), MaxTemplates)
	}
	if t.Kind == KindCloze && len(t.Templates) != 1 {
		return fmt.Errorf("cloze note type %q must have exactly one template", t.Name)
	}
	for _, tp := range t.Templates {
		usesCloze := false
		for side, src := range map[string]string{"front": tp.Front, "back": tp.Back} {
			p, err := parseTemplate(src)
			if err != nil {
				return fmt.Errorf("note type %q, template %q, %s: %v", t.Name, tp.Name, side, err)
			}
			var bad string
			p.fieldRefs(func(name string, filters []string) {
				if hasFilter(filters, "cloze") {
					usesCloze = true
				}
				if !seen[name] && !specialFields[name] && bad == "" {
					bad = name
				}
			})
			if bad != "" {
				return fmt.Errorf("note type %q, template %q, %s: there is no field %q", t.Name, tp.Name, side, bad)
			}
		}
		if t.Kind == KindCloze && !usesCloze {
			return fmt.Errorf("cloze note type %q: its template must use {{cloze:Field}}", t.Name)
		}
	}
	return nil
}

// specialFields are the names a template may use besides the note's
// fields.
var specialFields = map[string]bool{"FrontSide": true, "Tags": true, "Type": true, "Deck": true, "Subdeck": true, "Card": true, "CardFlag": true}

// Card is one card generated from a note: its ordinal (template index for
// a standard type, cloze number - 1 for a cloze type) and both sides as
// Anki HTML.
type Card struct {
	Ord   int
	Front string
	Back  string
}

// Note is what a note's cards render with besides its fields.
type Note struct {
	Fields []string // in the type's field order; missing ones are empty
	Tags   []string
	Deck   string // full deck name, e.g. "German::Vocab"
}

// Cards generates a note's cards: for a standard type one per template
// whose question shows a non-empty field, for a cloze type one per cloze
// number in the fields its template clozes. A note that makes no card is
// an error saying what to fill in.
func (t Type) Cards(n Note) ([]Card, error) {
	if len(n.Fields) > len(t.Fields) {
		return nil, fmt.Errorf("the note has %d fields; note type %q has %d (%s)", len(n.Fields), t.Name, len(t.Fields), strings.Join(t.Fields, ", "))
	}
	fields := make(map[string]string, len(t.Fields))
	for i, name := range t.Fields {
		if i < len(n.Fields) {
			fields[name] = n.Fields[i]
		} else {
			fields[name] = ""
		}
	}
	special := map[string]string{"Tags": strings.Join(n.Tags, " "), "Type": t.Name, "Deck": n.Deck, "Subdeck": n.Deck, "CardFlag": ""}
	if i := strings.LastIndex(n.Deck, "::"); i >= 0 {
		special["Subdeck"] = n.Deck[i+2:]
	}
	var out []Card
	if t.Kind == KindCloze {
		tp := t.Templates[0]
		front, back, err := parseSides(tp)
		if err != nil {
			return nil, err
		}
		ords := map[int]bool{}
		front.fieldRefs(func(name string, filters []string) {
			if hasFilter(filters, "cloze") {
				for _, o := range ClozeNumbers(fields[name]) {
					ords[o] = true
				}
			}
		})
		for ord := 1; ord <= MaxClozeOrd && len(out) < len(ords); ord++ {
			if !ords[ord] {
				continue
			}
			special["Card"] = fmt.Sprintf("Cloze %d", ord)
			c, _, err := renderCard(front, back, fields, special, ord)
			if err != nil {
				return nil, err
			}
			c.Ord = ord - 1
			out = append(out, c)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("a %s note needs at least one deletion such as {{c1::word}} in its text", t.Name)
		}
		return out, nil
	}
	for i, tp := range t.Templates {
		front, back, err := parseSides(tp)
		if err != nil {
			return nil, err
		}
		special["Card"] = tp.Name
		c, nonEmpty, err := renderCard(front, back, fields, special, 0)
		if err != nil {
			return nil, err
		}
		if !nonEmpty {
			continue
		}
		c.Ord = i
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the note makes no card: fill in %q", t.Fields[0])
	}
	return out, nil
}

func parseSides(tp Template) (front, back parsedTemplate, err error) {
	if front, err = parseTemplate(tp.Front); err != nil {
		return nil, nil, fmt.Errorf("template %q, front: %v", tp.Name, err)
	}
	if back, err = parseTemplate(tp.Back); err != nil {
		return nil, nil, fmt.Errorf("template %q, back: %v", tp.Name, err)
	}
	return front, back, nil
}

// frontSideMark stands for {{FrontSide}} while the answer renders.
const frontSideMark = "\x00frontside\x00"

// answerDivider is Anki's marker between the repeated question and the
// answer.
var answerDivider = regexp.MustCompile(`^\s*(<br\s*/?>\s*)*<hr\s+id\s*=\s*["']?answer["']?\s*/?>\s*`)

// renderCard renders one card. Our study views show the back under the
// front, so an answer that starts by repeating the question
// ({{FrontSide}}, or the question's text without its typing box, and the
// <hr id=answer> divider) keeps only what follows;
// a {{FrontSide}} elsewhere is replaced by the question.
func renderCard(front, back parsedTemplate, fields, special map[string]string, ord int) (Card, bool, error) {
	qc := &renderCtx{fields: fields, special: special, clozeOrd: ord, maxOutput: MaxRenderedLen}
	var q strings.Builder
	special["FrontSide"] = ""
	if err := qc.render(front, &q); err != nil {
		return Card{}, false, err
	}
	ac := &renderCtx{fields: fields, special: special, clozeOrd: ord, answer: true, maxOutput: MaxRenderedLen}
	special["FrontSide"] = frontSideMark
	var a strings.Builder
	if err := ac.render(back, &a); err != nil {
		return Card{}, false, err
	}
	delete(special, "FrontSide")
	question := strings.TrimSpace(q.String())
	answer := strings.TrimSpace(a.String())
	if rest, ok := strings.CutPrefix(answer, frontSideMark); ok {
		answer = answerDivider.ReplaceAllString(rest, "")
	} else if rest, ok := strings.CutPrefix(answer, strings.TrimSpace(strings.ReplaceAll(question, `<span class="`+contracts.TypeInClass+`"></span>`, ""))); ok && answerDivider.MatchString(rest) {
		// The question's fields written out again before the divider
		// (Anki's type-in stock type writes {{Front}}, not {{FrontSide}}).
		answer = answerDivider.ReplaceAllString(rest, "")
	}
	answer = strings.TrimSpace(strings.ReplaceAll(answer, frontSideMark, question))
	return Card{Front: question, Back: answer}, qc.nonEmpty, nil
}

var tagRE = regexp.MustCompile(`(?s)<[^>]*>`)

// StripHTML removes tags and decodes entities (Anki's text filter).
func StripHTML(s string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(s, ""))
}

// FieldEmpty reports whether a field shows nothing: only whitespace,
// non-breaking spaces and markup such as <br> or empty <div>s.
func FieldEmpty(s string) bool {
	if strings.TrimSpace(s) == "" {
		return true
	}
	t := StripHTML(s)
	return strings.TrimSpace(strings.ReplaceAll(t, "\u00a0", " ")) == "" && !strings.Contains(strings.ToLower(s), "<img")
}

// QuestionFields returns the fields a card's question can show, in the
// type's order: for a standard type the fields its fronts put in the
// question, for a cloze type the fields its front clozes. A note that
// leaves all of them empty makes no card.
func (t Type) QuestionFields() []string {
	used := map[string]bool{}
	for i, tp := range t.Templates {
		if t.Kind == KindCloze && i > 0 {
			break
		}
		p, err := parseTemplate(tp.Front)
		if err != nil {
			continue
		}
		var walk func([]node)
		walk = func(ns []node) {
			for _, n := range ns {
				switch {
				case n.kind == nodeField && (t.Kind != KindCloze || hasFilter(n.filters, "cloze")):
					used[n.field] = true
				case n.kind == nodeIf || n.kind == nodeIfNot:
					walk(n.children)
				}
			}
		}
		walk(p)
	}
	var out []string
	for _, f := range t.Fields {
		if used[f] {
			out = append(out, f)
		}
	}
	return out
}
