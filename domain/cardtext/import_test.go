package cardtext

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

type want struct {
	line        int
	front, back string
	tags        []string
	err         string // substring of Err; "" for a good record
}

func check(t *testing.T, name string, got Parsed, wantFormat contracts.ImportFormat, wants []want) {
	t.Helper()
	if got.Format != wantFormat {
		t.Errorf("%s: format %q, want %q", name, got.Format, wantFormat)
	}
	if len(got.Records) != len(wants) {
		t.Fatalf("%s: %d records, want %d: %+v", name, len(got.Records), len(wants), got.Records)
	}
	for i, w := range wants {
		r := got.Records[i]
		if r.Line != w.line {
			t.Errorf("%s[%d]: line %d, want %d", name, i, r.Line, w.line)
		}
		if w.err != "" {
			if !strings.Contains(r.Err, w.err) || !strings.HasPrefix(r.Err, fmt.Sprintf("line %d: ", w.line)) {
				t.Errorf("%s[%d]: Err %q, want line %d and %q", name, i, r.Err, w.line, w.err)
			}
			continue
		}
		if r.Err != "" || r.Card.Front != w.front || r.Card.Back != w.back || !slices.Equal(r.Card.Tags, w.tags) {
			t.Errorf("%s[%d]: got %+v (err %q), want front %q back %q tags %q", name, i, r.Card, r.Err, w.front, w.back, w.tags)
		}
	}
}

func TestParseCSVWithHeaderAndQuoting(t *testing.T) {
	text := "front,back,tags\r\n" +
		"hello,hallo,de greeting\r\n" +
		"\"a, b\",\"she said \"\"hi\"\"\",x\r\n" +
		"\"multi\nline\",back,\n" +
		"\n" +
		"only-one-column\n" +
		"one,two,three,four\n" +
		"last,row"
	got, err := Parse(text, contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "csv", got, contracts.ImportCSV, []want{
		{line: 2, front: "hello", back: "hallo", tags: []string{"de", "greeting"}},
		{line: 3, front: "a, b", back: `she said "hi"`, tags: []string{"x"}},
		{line: 4, front: "multi\nline", back: "back", tags: []string{}},
		{line: 7, err: "expected front and back separated by a comma; found 1 column"},
		{line: 8, err: "expected at most 3 columns"},
		{line: 9, front: "last", back: "row"},
	})
}

func TestParseHeaderVariants(t *testing.T) {
	got, err := Parse("Question\tAnswer\nq1\ta1\n", contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "tsv header", got, contracts.ImportTSV, []want{{line: 2, front: "q1", back: "a1"}})

	// Columns in another order, named.
	got, err = Parse("tags,answer,question\nt1 t2,A,Q\n", contracts.ImportCSV)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "reordered", got, contracts.ImportCSV, []want{{line: 2, front: "Q", back: "A", tags: []string{"t1", "t2"}}})

	// A first row that is a card stays a card.
	got, err = Parse("dog\tHund\n", contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "no header", got, contracts.ImportTSV, []want{{line: 1, front: "dog", back: "Hund"}})
}

func TestParseSemicolonCSV(t *testing.T) {
	got, err := Parse("eins;one\nzwei;two\n", contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "semicolon", got, contracts.ImportCSV, []want{{line: 1, front: "eins", back: "one"}, {line: 2, front: "zwei", back: "two"}})
}

func TestParseAnkiExport(t *testing.T) {
	text := "#separator:tab\n" +
		"#html:true\n" +
		"#notetype column:1\n" +
		"#deck column:2\n" +
		"#tags column:5\n" +
		"Basic\tGerman\tHund\tdog\tanimals de::nouns\n" +
		"Basic\tGerman\t\"Tab\there\"\t\"line1<br>\"\"quoted\"\"\nline2\"\t\n" +
		"Basic\tGerman\tKatze\tcat\tanimals\tignored?\n"
	got, err := Parse(text, contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "anki", got, contracts.ImportAnki, []want{
		{line: 6, front: "Hund", back: "dog", tags: []string{"animals", "de::nouns"}},
		{line: 7, front: "Tab\there", back: "line1<br>\"quoted\"\nline2", tags: []string{}},
		{line: 9, front: "Katze", back: "cat\n\nignored?", tags: []string{"animals"}},
	})
}

func TestParseAnkiColumnsHeader(t *testing.T) {
	text := "#separator:Comma\n#columns:Front,Back,Tags\nq,a,t\n"
	got, err := Parse(text, contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "anki columns", got, contracts.ImportAnki, []want{{line: 3, front: "q", back: "a", tags: []string{"t"}}})

	// Explicit anki without header lines: tab separated; as in older
	// exports, a third column is the tags column.
	got, err = Parse("f\tb\textra\n", contracts.ImportAnki)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "anki plain", got, contracts.ImportAnki, []want{{line: 1, front: "f", back: "b", tags: []string{"extra"}}})
}

// A field that starts with a quote but is not a quoted field is read as
// written: nothing is lost and the next lines are unaffected.
func TestParseLooseQuotesKept(t *testing.T) {
	text := "ok,row\n" +
		"\"Guten Tag\" sagen,to say hello\n" +
		"\"a, b\" c,d\n" +
		"fine,again\n" +
		"\"never closed,back\n" +
		"after,unclosed\n"
	got, err := Parse(text, contracts.ImportCSV)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "loose quotes", got, contracts.ImportCSV, []want{
		{line: 1, front: "ok", back: "row"},
		{line: 2, front: `"Guten Tag" sagen`, back: "to say hello"},
		{line: 3, front: `"a, b" c`, back: "d"},
		{line: 4, front: "fine", back: "again"},
		{line: 5, front: `"never closed`, back: "back"},
		{line: 6, front: "after", back: "unclosed"},
	})
	// The same in an Anki export, tab separated.
	got, err = Parse("#separator:tab\n#html:true\n\"Guten Tag\" sagen\tto say hello\n", contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "anki loose quotes", got, contracts.ImportAnki, []want{{line: 3, front: `"Guten Tag" sagen`, back: "to say hello"}})
}

func TestParseLineNumbersAfterMultilineFields(t *testing.T) {
	text := "\"a\nb\nc\"\tx\n\nlonely\n"
	got, err := Parse(text, contracts.ImportTSV)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "lines", got, contracts.ImportTSV, []want{
		{line: 1, front: "a\nb\nc", back: "x"},
		{line: 5, err: "separated by a tab"},
	})
}

func TestParseWholeTextErrors(t *testing.T) {
	cases := map[string]struct {
		text   string
		format contracts.ImportFormat
		want   string
	}{
		"empty":       {"\n\n  \n", contracts.ImportTSV, "no cards found"},
		"undetected":  {"just words here\nand more words\n", contracts.ImportAuto, "could not tell the format"},
		"format":      {"a,b", "xlsx", "format must be one of"},
		"too big":     {strings.Repeat("a,b\n", contracts.MaxImportBytes/4+1), contracts.ImportCSV, "the limit is"},
		"header only": {"front,back\n", contracts.ImportCSV, "no cards found"},
	}
	for name, c := range cases {
		_, err := Parse(c.text, c.format)
		if !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid mentioning %q", name, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("a,b\n\"c\"\"\",d\n", "auto")
	f.Add("#separator:tab\n#tags column:3\nx\ty\tz\n", "anki")
	f.Add("\"unterminated\n\tq\n", "tsv")
	f.Fuzz(func(t *testing.T, text, format string) {
		p, err := Parse(text, contracts.ImportFormat(format))
		if err != nil {
			if !contracts.IsKind(err, contracts.KindInvalid) {
				t.Fatalf("error of kind %s: %v", contracts.KindOf(err), err)
			}
			return
		}
		prev := 0
		for _, r := range p.Records {
			if r.Line <= prev {
				t.Fatalf("line numbers not increasing: %d after %d", r.Line, prev)
			}
			prev = r.Line
		}
	})
}
