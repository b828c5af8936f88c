package cardtext

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/takhtabush/takhtabush/contracts"
)

// quote writes a field the way spreadsheets and Anki do: in double quotes
// when it holds the separator, a quote or a line break.
func quote(field string, sep byte) string {
	if strings.ContainsAny(field, string(sep)+"\"\n") {
		return `"` + strings.ReplaceAll(field, `"`, `""`) + `"`
	}
	return field
}

// TestParseRoundTrip writes random cards as CSV, TSV and Anki text with
// correct quoting and reads them back unchanged, with the right lines.
func TestParseRoundTrip(t *testing.T) {
	field := rapid.Custom(func(t *rapid.T) string {
		// A leading letter keeps fields from being blank or header words.
		return "x" + rapid.StringOf(rapid.SampledFrom([]rune("ab ,;\t\"\n'é#"))).Draw(t, "rest")
	})
	rapid.Check(t, func(t *rapid.T) {
		format := rapid.SampledFrom([]contracts.ImportFormat{contracts.ImportCSV, contracts.ImportTSV, contracts.ImportAnki}).Draw(t, "format")
		sep := byte(',')
		var b strings.Builder
		if format != contracts.ImportCSV {
			sep = '\t'
		}
		if format == contracts.ImportAnki {
			b.WriteString("#separator:tab\n#html:false\n")
		}
		n := rapid.IntRange(1, 8).Draw(t, "n")
		cards := make([]contracts.NewCard, n)
		lines := make([]int, n)
		line := strings.Count(b.String(), "\n") + 1
		for i := range cards {
			cards[i] = contracts.NewCard{Front: field.Draw(t, "front"), Back: field.Draw(t, "back")}
			lines[i] = line
			row := quote(cards[i].Front, sep) + string(sep) + quote(cards[i].Back, sep) + "\n"
			line += strings.Count(row, "\n")
			b.WriteString(row)
		}
		got, err := Parse(b.String(), format)
		if err != nil {
			t.Fatalf("Parse(%q): %v", b.String(), err)
		}
		if len(got.Records) != n {
			t.Fatalf("Parse(%q): %d records, want %d: %+v", b.String(), len(got.Records), n, got.Records)
		}
		for i, r := range got.Records {
			if r.Err != "" || r.Card.Front != cards[i].Front || r.Card.Back != cards[i].Back || r.Line != lines[i] {
				t.Fatalf("record %d of %q: %+v, want %+v at line %d", i, b.String(), r, cards[i], lines[i])
			}
		}
	})
}
