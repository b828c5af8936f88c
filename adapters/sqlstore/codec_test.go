package sqlstore

import (
	"encoding/json"
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

func TestBatches(t *testing.T) {
	shapes := map[int]bool{}
	for n := 0; n <= 1200; n++ {
		vs := make([]int, n)
		for i := range vs {
			vs[i] = i
		}
		total := 0
		for _, b := range batches(vs) {
			if len(b) == 0 || (len(b) > 15 && len(b) != 16 && len(b) != 64 && len(b) != 256) {
				t.Fatalf("batches(%d) has a piece of %d", n, len(b))
			}
			for i, v := range b {
				if v != total+i {
					t.Fatalf("batches(%d) reorders or drops items", n)
				}
			}
			total += len(b)
			shapes[len(b)] = true
		}
		if total != n {
			t.Fatalf("batches(%d) covers %d", n, total)
		}
	}
	if len(shapes) > 18 {
		t.Fatalf("%d statement shapes, want at most 18", len(shapes))
	}
}

// TestAppendJSONString: what appendJSONString and appendJSONBytes write
// reads back as the string encoding/json would have written.
func TestAppendJSONString(t *testing.T) {
	for _, v := range []string{"", "plain", `{"back":"a \"b\" c","tags":["x"]}`, `back\slash`, "tab\tnew\nline\r\x00\x1f\x7f",
		"<&> \u2028 \u2029 日本語 é", "bad \xff\xfe utf-8"} {
		b := appendJSONString([]byte("x"), v)
		if b[0] != 'x' {
			t.Fatalf("appendJSONString(%q) dropped the prefix: %s", v, b)
		}
		if bb := appendJSONBytes([]byte("x"), []byte(v)); string(bb) != string(b) {
			t.Errorf("appendJSONBytes(%q) = %s, appendJSONString %s", v, bb, b)
		}
		var got, want string
		if err := json.Unmarshal(b[1:], &got); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: %v", v, b[1:], err)
		}
		m, _ := json.Marshal(v)
		if err := json.Unmarshal(m, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("appendJSONString(%q) reads back %q, encoding/json %q", v, got, want)
		}
	}
}
