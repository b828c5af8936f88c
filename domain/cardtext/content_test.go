package cardtext

import (
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestNormalizeAndHash(t *testing.T) {
	if got := Normalize("  Hello \t\n  World  "); got != "hello world" {
		t.Errorf("Normalize = %q", got)
	}
	a := Hash("What is Go?", "A language")
	same := []struct{ f, b string }{
		{"  what IS  go? ", "a\nlanguage"},
		{"WHAT IS GO?", "A   LANGUAGE "},
	}
	for _, s := range same {
		if Hash(s.f, s.b) != a {
			t.Errorf("Hash(%q, %q) differs from Hash of the same content", s.f, s.b)
		}
	}
	if Hash("What is Go?", "A languag") == a || Hash("A language", "What is Go?") == a {
		t.Error("different content or swapped sides must hash differently")
	}
	// The separator keeps "ab"+"c" apart from "a"+"bc".
	if Hash("ab", "c") == Hash("a", "bc") {
		t.Error("side boundary lost in the hash")
	}
	if len(a) != 64 {
		t.Errorf("hash %q is not hex SHA-256", a)
	}
}

func TestCleanSide(t *testing.T) {
	if s, err := CleanSide("front", "  hi\nthere  "); err != nil || s != "hi\nthere" {
		t.Errorf("CleanSide = %q, %v", s, err)
	}
	bad := map[string]string{
		"   ":                      "front must not be empty",
		"a\x00b":                   "NUL",
		string([]byte{0xff}):       "UTF-8",
		strings.Repeat("é", 10001): "10001 characters; the limit is 10000",
	}
	for in, want := range bad {
		if _, err := CleanSide("front", in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CleanSide(%.20q) error %v, want it to mention %q", in, err, want)
		}
	}
	if _, err := CleanSide("front", strings.Repeat("é", 10000)); err != nil {
		t.Errorf("10000 characters must be accepted: %v", err)
	}
}

func TestNormalizeTags(t *testing.T) {
	got, err := NormalizeTags([]string{" Chapter-1 ", "verbs", "", "CHAPTER-1", "lang::de"})
	if err != nil || !slices.Equal(got, []string{"Chapter-1", "verbs", "lang::de"}) {
		t.Errorf("NormalizeTags = %v, %v", got, err)
	}
	if got, err := NormalizeTags(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("NormalizeTags(nil) = %#v, %v; want empty non-nil", got, err)
	}
	cases := map[string][]string{
		"use \"chapter-1\" instead": {"chapter 1"},
		"the limit is 64":           {strings.Repeat("x", 65)},
		"control character":         {"a\x07b"},
		"21 tags; the limit is 20": func() []string {
			var s []string
			for i := range 21 {
				s = append(s, string(rune('a'+i)))
			}
			return s
		}(),
	}
	for want, in := range cases {
		if _, err := NormalizeTags(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeTags(%q) error %v, want %q", in, err, want)
		}
	}
	// Duplicates do not count against the limit.
	many := slices.Repeat([]string{"same"}, 50)
	if got, err := NormalizeTags(many); err != nil || len(got) != 1 {
		t.Errorf("50 copies of one tag: %v, %v", got, err)
	}
}

func TestClean(t *testing.T) {
	c, err := Clean(contracts.NewCard{Front: " Q ", Back: " A ", Tags: []string{"X"}})
	if err != nil || c.Front != "Q" || c.Back != "A" || !slices.Equal(c.Tags, []string{"X"}) {
		t.Errorf("Clean = %+v, %v", c, err)
	}
	if _, err := Clean(contracts.NewCard{Front: "Q", Back: ""}); err == nil || err.Error() != "back must not be empty" {
		t.Errorf("empty back: %v", err)
	}
}
