package cardtext

import (
	"os"
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func parseFile(t *testing.T, name string) Parsed {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(string(b), contracts.ImportAuto)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// An Anki 2.1.66 "Notes in Plain Text" export with GUID, note type and
// deck columns, HTML, a cloze note, reversed notes, subdecks and tags.
func TestParseAnkiFullExport(t *testing.T) {
	p := parseFile(t, "anki-2.1.66-notes.txt")
	if p.Format != contracts.ImportAnki || !p.HTML {
		t.Fatalf("format %q html %v", p.Format, p.HTML)
	}
	type rec struct {
		line           int
		guid, nt, deck string
		fields, tags   []string
	}
	want := []rec{
		// The first note is "Question / Answer": a note, not a header row.
		{7, "Question", "Basic", "German::Vocab", []string{"Question", "Answer"}, []string{"meta"}},
		{8, "b5Xq|Rk!9T", "Basic", "German::Vocab", []string{"<b>der Hund</b>&nbsp;", `the dog<br><img src="hund.jpg">`}, []string{"German", "Nouns"}},
		{9, "f2=Q+8~a1v", "Basic (and reversed card)", "German::Vocab", []string{"die Katze", "the cat [sound:katze.mp3]"}, []string{"German", "Nouns"}},
		{10, "K7g@2w{dEs", "Cloze", "German::Grammar", []string{"{{c1::Der}} Hund {{c2::bellt}}.", "<i>bellen</i> = to bark"}, []string{"German", "Verbs"}},
		{11, "p0]L3x$rQa", "Basic (optional reversed card)", "German", []string{"das Haus", "the house", "y"}, nil},
		{12, "Ab,cd;ef1", "Basic", "German", []string{"<div>Guten Tag</div><div>sagen</div>", `to say "hello"`}, nil},
	}
	if len(p.Records) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(p.Records), len(want), p.Records)
	}
	for i, w := range want {
		r := p.Records[i]
		if r.Err != "" || r.Line != w.line || r.GUID != w.guid || r.Notetype != w.nt || r.Deck != w.deck ||
			!slices.Equal(r.Fields, w.fields) || !slices.Equal(r.Card.Tags, w.tags) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, r, w)
		}
	}
}

// The first note of an Anki file is never taken for a header row.
func TestParseAnkiFirstNoteQuestionAnswer(t *testing.T) {
	p := parseFile(t, "anki-question-answer.txt")
	check(t, "question/answer", p, contracts.ImportAnki, []want{
		{line: 4, front: "Question", back: "Answer", tags: []string{"meta"}},
		{line: 5, front: "Hund", back: "dog", tags: []string{"German"}},
	})
}

// Anki 2.1.50-2.1.54 wrote no "#tags column": the third column is tags.
func TestParseAnkiLegacyTagsColumn(t *testing.T) {
	p := parseFile(t, "anki-2.1.50-no-tags-header.txt")
	check(t, "legacy tags column", p, contracts.ImportAnki, []want{
		{line: 3, front: "Hund", back: "dog", tags: []string{"German", "Nouns"}},
		{line: 4, front: "Katze", back: "cat", tags: []string{}},
	})
}

// Anki 2.0 exports start with "tags:…", tags for every note.
func TestParseAnkiLegacyTagsLine(t *testing.T) {
	p := parseFile(t, "anki-2.0-legacy.txt")
	check(t, "legacy tags line", p, contracts.ImportAnki, []want{
		{line: 2, front: "Hund", back: "dog", tags: []string{"Vokabeln", "Kapitel_1"}},
		{line: 3, front: "Katze", back: "cat", tags: []string{"Vokabeln", "Kapitel_1"}},
	})
}

// "#tags:" tags every note, before the note's own tags; "#deck:" and
// "#notetype:" apply to notes without their own.
func TestParseAnkiFileHeaders(t *testing.T) {
	text := "#separator:Semicolon\n#html:false\n#tags:Import 2026\n#deck:Spanish::Verbs\n#notetype:Basic (and reversed card)\n#tags column:3\nhablar;to speak;Regular\n"
	p, err := Parse(text, contracts.ImportAuto)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "file headers", p, contracts.ImportAnki, []want{{line: 7, front: "hablar", back: "to speak", tags: []string{"Import", "2026", "Regular"}}})
	if r := p.Records[0]; r.Deck != "Spanish::Verbs" || r.Notetype != "Basic (and reversed card)" || p.HTML {
		t.Errorf("deck %q notetype %q html %v", r.Deck, r.Notetype, p.HTML)
	}
}

// A header row in German (semicolon separated, as German spreadsheets
// write CSV) is recognised, with its tags column.
func TestParseGermanHeaderRow(t *testing.T) {
	p := parseFile(t, "german-header.csv")
	check(t, "german header", p, contracts.ImportCSV, []want{
		{line: 2, front: "der Hund", back: "the dog", tags: []string{"Tiere", "Nomen"}},
		{line: 3, front: "die Katze", back: "the cat", tags: []string{"Tiere"}},
	})
	for _, h := range []string{"Recto;Verso", "Pregunta;Respuesta", "Вопрос;Ответ", "Vraag;Antwoord"} {
		p, err := Parse(h+"\nq;a\n", contracts.ImportAuto)
		if err != nil || len(p.Records) != 1 || p.Records[0].Card.Front != "q" {
			t.Errorf("%s: %+v %v", h, p.Records, err)
		}
	}
}

// A first line without a separator (a title) is one invalid line, not a
// failed file.
func TestParseTitleLineWithoutSeparator(t *testing.T) {
	p := parseFile(t, "title-line.tsv")
	check(t, "title line", p, contracts.ImportTSV, []want{
		{line: 1, err: "expected front and back separated by a tab"},
		{line: 2, front: "Hund", back: "dog"},
		{line: 3, front: "Katze", back: "cat", tags: []string{"Tiere"}},
	})
}

func TestNormalizeTagsKeepsCase(t *testing.T) {
	got, err := NormalizeTags([]string{"German", " Nouns", "german", "B1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"German", "Nouns", "B1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
