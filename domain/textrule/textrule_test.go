package textrule

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind Kind
		want string
		err  string
	}{
		{"Geography", Label, "Geography", ""},
		{"line one\r\nline two\n\tindented", Text, "line one\nline two\n\tindented", ""},
		{"Deck\x00name", Label, "", "NUL character (U+0000, character 5)"},
		{"front\x07", Text, "", "U+0007"},
		{"lone\rcarriage", Text, "", "U+000D"},
		{"bad\xff", Text, "", "not valid UTF-8"},
		{"evil\u202Egnp.exe", Label, "", "bidirectional control U+202E"},
		{"x\u2066y\u2069", Label, "", "U+2066"},
		{"\u200B\u200B", Label, "", "only of invisible characters"},
		{" \u3164 \u200D", Label, "", "only of invisible characters"},
		{"\u0301", Label, "", "only of invisible characters"},
		// Card text keeps right-to-left scripts and their controls as written.
		{"مرحبا بالعالم", Text, "مرحبا بالعالم", ""},
		{"שלום עולם", Text, "שלום עולם", ""},
		{"\u202Bمرحبا\u202C and \u200Fשלום\u200E", Text, "\u202Bمرحبا\u202C and \u200Fשלום\u200E", ""},
		{"عربي", Label, "عربي", ""},
		{"עברית\u200F", Label, "עברית\u200F", ""}, // a direction mark is not an override
		{"", Label, "", ""},
	} {
		got, err := Clean("name", c.in, c.kind)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Clean(%q) = %q, %v; want %q", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "name ")):
			t.Errorf("Clean(%q) error %v; want one naming the field and %q", c.in, err, c.err)
		}
	}
}

// FuzzClean holds the rule's promises for any input: what it accepts is
// valid UTF-8 without C0 controls other than tab and newline, without CR,
// unchanged but for CRLF, and accepted again unchanged; labels carry no
// bidirectional controls and something visible.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"Geography", "a\r\nb", "x\x00", "مرحبا", "\u202Eabc", "\u200B", "\t\n", "\xff", "שלום\u200F"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, label bool) {
		k := Text
		if label {
			k = Label
		}
		out, err := Clean("f", s, k)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f ") {
				t.Fatalf("error %q does not name the field", err)
			}
			return
		}
		if !utf8.ValidString(out) || out != strings.ReplaceAll(s, "\r\n", "\n") {
			t.Fatalf("Clean(%q) = %q", s, out)
		}
		visible := false
		for _, r := range out {
			if r < 0x20 && r != '\t' && r != '\n' {
				t.Fatalf("Clean(%q) kept control %U", s, r)
			}
			if k == Label && isBidiControl(r) {
				t.Fatalf("Clean(%q) kept bidi control %U in a label", s, r)
			}
			visible = visible || !Invisible(r)
		}
		if k == Label && strings.TrimSpace(out) != "" && !visible {
			t.Fatalf("Clean(%q) accepted an invisible label", s)
		}
		again, err := Clean("f", out, k)
		if err != nil || again != out {
			t.Fatalf("Clean is not idempotent on %q: %q, %v", out, again, err)
		}
	})
}

// Shown leaves what a person reads: no control, format or filler
// characters, white space collapsed.
func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"Claude":                                  "Claude",
		"Clau\u200bde\u200d":                      "Claude",
		"\u202eedualC\u202c":                      "edualC",
		"Good\u2066 App\u2069\u200e":              "Good App",
		"  a\t\n b \u00a0 c  ":                    "a b c",
		"x\x00y\x1bz\u0085":                       "xyz",
		"\u3164\u115f\u2800":                      "",
		"tag\U000E0041\U000E0042":                 "tag",
		"e\u0301t\u00e9 \u05e9\u05dc\u05d5\u05dd": "e\u0301t\u00e9 \u05e9\u05dc\u05d5\u05dd",
		"bad\xffutf8":                             "badutf8",
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %q, want %q", in, got, want)
		}
	}
}
