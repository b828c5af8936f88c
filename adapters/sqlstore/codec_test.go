package sqlstore

import (
	"slices"
	"strings"
	"testing"
)

func TestQueryWords(t *testing.T) {
	cases := map[string][]string{
		"":                    nil,
		"  quick  brown fox ": {"quick", "brown", "fox"},
		"fox! (dog), cat?":    {"fox", "dog", "cat"},
		"don't":               {"don", "t"},
		"El zorro marrón":     {"El", "zorro", "marrón"},
		"\u0301 a\u0301":      {"a\u0301"},
		"日本語 テスト":             {"日本語", "テスト"},
		"?!":                  nil,
	}
	for q, want := range cases {
		if got := queryWords(q); !slices.Equal(got, want) {
			t.Errorf("queryWords(%q) = %q, want %q", q, got, want)
		}
	}
	if got := queryWords(strings.Repeat("w ", 40)); len(got) != maxQueryWords {
		t.Errorf("queryWords kept %d words, want %d", len(got), maxQueryWords)
	}
}

func TestChunksAndDedupe(t *testing.T) {
	got := chunks([]int{1, 2, 3, 4, 5}, 2)
	if len(got) != 3 || !slices.Equal(got[2], []int{5}) {
		t.Errorf("chunks = %v", got)
	}
	if got := chunks([]int{}, 2); len(got) != 0 {
		t.Errorf("chunks of nothing = %v", got)
	}
	if got := dedupe([]string{"b", "a", "b", "c", "a"}); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("dedupe = %v", got)
	}
}
