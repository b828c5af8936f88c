package notes

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func stock(t *testing.T, name string) Type {
	t.Helper()
	tp, ok := StockByName(name)
	if !ok {
		t.Fatalf("no stock type %q", name)
	}
	return tp
}

func TestStockTypesValidate(t *testing.T) {
	for _, tp := range Stock() {
		if err := tp.Validate(); err != nil {
			t.Errorf("%s: %v", tp.Name, err)
		}
	}
}

func TestBasicAndReversed(t *testing.T) {
	cards, err := stock(t, "Basic (and reversed card)").Cards(Note{Fields: []string{"<b>der Hund</b>", "the dog"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 {
		t.Fatalf("%d cards, want 2: %+v", len(cards), cards)
	}
	if cards[0].Front != "<b>der Hund</b>" || cards[0].Back != "the dog" || cards[0].Ord != 0 {
		t.Errorf("card 1: %+v", cards[0])
	}
	if cards[1].Front != "the dog" || cards[1].Back != "<b>der Hund</b>" || cards[1].Ord != 1 {
		t.Errorf("card 2: %+v", cards[1])
	}
}

func TestOptionalReversed(t *testing.T) {
	tp := stock(t, "basic (optional reversed card)")
	one, err := tp.Cards(Note{Fields: []string{"Katze", "cat", ""}})
	if err != nil || len(one) != 1 {
		t.Fatalf("without Add Reverse: %d cards, %v", len(one), err)
	}
	two, err := tp.Cards(Note{Fields: []string{"Katze", "cat", "y"}})
	if err != nil || len(two) != 2 || two[1].Front != "cat" || two[1].Back != "Katze" {
		t.Fatalf("with Add Reverse: %+v, %v", two, err)
	}
}

func TestTypeIn(t *testing.T) {
	cards, err := stock(t, BasicTypeIn).Cards(Note{Fields: []string{"capital of France?", "Paris"}})
	if err != nil || len(cards) != 1 {
		t.Fatalf("%+v %v", cards, err)
	}
	if strings.Contains(cards[0].Front, "Paris") {
		t.Errorf("the question gives the answer away: %q", cards[0].Front)
	}
	if !strings.Contains(cards[0].Back, "Paris") {
		t.Errorf("the answer lacks the expected answer: %q", cards[0].Back)
	}
	// The question marks where to type; the answer holds the expected
	// answer for the comparison and does not repeat the question.
	if want := `capital of France?

<span class="type-in"></span>`; cards[0].Front != want {
		t.Errorf("the question is %q, want %q", cards[0].Front, want)
	}
	if want := `<span class="type-answer">Paris</span>`; cards[0].Back != want {
		t.Errorf("the answer is %q, want %q", cards[0].Back, want)
	}
}

func TestCloze(t *testing.T) {
	cards, err := stock(t, Cloze).Cards(Note{Fields: []string{"{{c1::Der}} Hund {{c2::bellt::verb}}.", "Extra"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 {
		t.Fatalf("%d cards: %+v", len(cards), cards)
	}
	want := []Card{
		{Ord: 0, Front: `<span class="cloze">[...]</span> Hund bellt.`, Back: "<span class=\"cloze\">Der</span> Hund bellt.<br>\nExtra"},
		{Ord: 1, Front: `Der Hund <span class="cloze">[verb]</span>.`, Back: "Der Hund <span class=\"cloze\">bellt</span>.<br>\nExtra"},
	}
	for i := range want {
		if cards[i] != want[i] {
			t.Errorf("card %d:\n got %+v\nwant %+v", i, cards[i], want[i])
		}
	}
	if _, err := stock(t, Cloze).Cards(Note{Fields: []string{"no deletions here"}}); err == nil || !strings.Contains(err.Error(), "{{c1::") {
		t.Errorf("a cloze note without deletions: %v", err)
	}
}

func TestNestedAndRepeatedCloze(t *testing.T) {
	s := "{{c1::Berlin {{c2::is}} big}} and {{c1::old}}"
	if got := ClozeNumbers(s); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("numbers %v", got)
	}
	if got := RenderCloze(s, 2, false); got != `Berlin <span class="cloze">[...]</span> big and old` {
		t.Errorf("c2 question: %q", got)
	}
	if got := RenderCloze(s, 1, false); got != `<span class="cloze">[...]</span> and <span class="cloze">[...]</span>` {
		t.Errorf("c1 question: %q", got)
	}
	if got := RenderCloze("{{c1::unterminated", 1, false); got != "{{c1::unterminated" {
		t.Errorf("unterminated: %q", got)
	}
	if got := clozeOnly(s, 1); got != "Berlin is big, old" {
		t.Errorf("cloze-only: %q", got)
	}
}

func TestTemplateSyntax(t *testing.T) {
	tp := Type{Name: "Vocab", Kind: KindStandard, Fields: []string{"Word", "Meaning", "Reading", "Notes"}, Templates: []Template{{
		Name:  "Recognition",
		Front: "{{Word}}{{#Reading}} ({{furigana:Reading}}){{/Reading}}{{^Notes}}!{{/Notes}}{{! a comment }}",
		Back:  "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{text:Notes}} {{hint:Notes}} [{{Deck}}|{{Subdeck}}|{{Tags}}|{{Type}}|{{Card}}]",
	}}}
	if err := tp.Validate(); err != nil {
		t.Fatal(err)
	}
	cards, err := tp.Cards(Note{Fields: []string{"日本", "Japan", "日本[にほん]", "<i>a</i> country"}, Tags: []string{"geo", "JP"}, Deck: "Lang::Japanese"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cards[0].Front; got != "日本 (<ruby>日本<rt>にほん</rt></ruby>)" {
		t.Errorf("front %q", got)
	}
	if got := cards[0].Back; got != `Japan<br>a country <span class="hint"><i>a</i> country</span> [Lang::Japanese|Japanese|geo JP|Vocab|Recognition]` {
		t.Errorf("back %q", got)
	}
	// An empty Reading and Notes: the section drops, the inverted one shows.
	cards, err = tp.Cards(Note{Fields: []string{"水", "water", "", "<br>"}})
	if err != nil || cards[0].Front != "水!" {
		t.Errorf("sections: %+v %v", cards, err)
	}
}

func TestFrontSideElsewhere(t *testing.T) {
	tp := Type{Name: "Q", Kind: KindStandard, Fields: []string{"Q", "A"}, Templates: []Template{{Name: "c", Front: "{{Q}}", Back: "{{A}} (for {{FrontSide}})"}}}
	cards, err := tp.Cards(Note{Fields: []string{"q", "a"}})
	if err != nil || cards[0].Back != "a (for q)" {
		t.Errorf("%+v %v", cards, err)
	}
}

func TestValidateRejects(t *testing.T) {
	cases := map[string]Type{
		"unknown field":  {Name: "x", Kind: KindStandard, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: "{{B}}", Back: "{{A}}"}}},
		"unclosed":       {Name: "x", Kind: KindStandard, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: "{{#A}}x", Back: "{{A}}"}}},
		"mismatched":     {Name: "x", Kind: KindStandard, Fields: []string{"A", "B"}, Templates: []Template{{Name: "t", Front: "{{#A}}x{{/B}}", Back: "{{A}}"}}},
		"stray close":    {Name: "x", Kind: KindStandard, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: "{{A}}{{/A}}", Back: "{{A}}"}}},
		"cloze no cloze": {Name: "x", Kind: KindCloze, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: "{{A}}", Back: "{{A}}"}}},
		"dup field":      {Name: "x", Kind: KindStandard, Fields: []string{"A", "A"}, Templates: []Template{{Name: "t", Front: "{{A}}", Back: "{{A}}"}}},
		"no name":        {Kind: KindStandard, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: "{{A}}", Back: "{{A}}"}}},
		"too deep":       {Name: "x", Kind: KindStandard, Fields: []string{"A"}, Templates: []Template{{Name: "t", Front: strings.Repeat("{{#A}}", 40) + strings.Repeat("{{/A}}", 40), Back: "{{A}}"}}},
	}
	for name, tp := range cases {
		if err := tp.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzRender feeds hostile templates and fields to the renderer: it must
// neither panic nor take long nor grow without bound.
func FuzzRender(f *testing.F) {
	f.Add("{{Front}}", "{{FrontSide}}<hr id=answer>{{Back}}", "{{c1::a {{c2::b::h}}}}", "x")
	f.Add("{{#Front}}{{^Back}}{{cloze:Front}}{{/Back}}{{/Front}}", "{{type:cloze:Front}}", "{{c1::{{c1::{{c1::", "[")
	f.Add(strings.Repeat("{{Front}}", 100), "{{furigana:Back}}", strings.Repeat("{{c1::x}}", 50), "a[b] c[d")
	f.Fuzz(func(t *testing.T, front, back, f1, f2 string) {
		if len(front)+len(back)+len(f1)+len(f2) > 1<<16 {
			return
		}
		start := time.Now()
		for _, kind := range []Kind{KindStandard, KindCloze} {
			tp := Type{Name: "fuzz", Kind: kind, Fields: []string{"Front", "Back"}, Templates: []Template{{Name: "t", Front: front, Back: back}}}
			if tp.Validate() != nil {
				continue
			}
			cards, _ := tp.Cards(Note{Fields: []string{f1, f2}})
			for _, c := range cards {
				if len(c.Front)+len(c.Back) > 4*MaxRenderedLen {
					t.Fatalf("rendered %d bytes", len(c.Front)+len(c.Back))
				}
			}
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("took %v", d)
		}
	})
}

// QuestionFields names the fields a note must fill for a card to be made:
// what the fronts show (inside conditionals too), for a cloze type only
// the clozed fields; never a special field or a field only tested.
func TestQuestionFields(t *testing.T) {
	opt, _ := StockByName(BasicOptReversed)
	cloze, _ := StockByName(Cloze)
	own := Type{Name: "Vocab", Kind: KindStandard, Fields: []string{"Word", "Picture", "Meaning", "Hint"}, Templates: []Template{
		{Name: "1", Front: "{{Word}} {{Deck}}", Back: "{{Meaning}}"},
		{Name: "2", Front: "{{#Hint}}{{Picture}}{{/Hint}}{{^Hint}}{{text:Meaning}}{{/Hint}}", Back: "{{Word}}"},
	}}
	ownCloze := Type{Name: "C", Kind: KindCloze, Fields: []string{"Intro", "Satz"}, Templates: []Template{{Name: "c", Front: "{{Intro}} {{cloze:Satz}}", Back: "{{cloze:Satz}}"}}}
	for _, c := range []struct {
		t    Type
		want []string
	}{
		{opt, []string{"Front", "Back"}},
		{cloze, []string{"Text"}},
		{own, []string{"Word", "Picture", "Meaning"}},
		{ownCloze, []string{"Satz"}},
	} {
		if got := c.t.QuestionFields(); !slices.Equal(got, c.want) {
			t.Errorf("%s: QuestionFields() = %v, want %v", c.t.Name, got, c.want)
		}
	}
}
