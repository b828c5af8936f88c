package filtered

import (
	"reflect"
	"testing"
)

// TestTerms: spaces separate a search's words except inside double
// quotes, which are kept in the word as written but not in its value.
func TestTerms(t *testing.T) {
	got := terms(`deck:"Spanish verbs"  is:due "two words" tag:x plain "ratio 1:2" deck:"open`)
	want := []term{
		{text: `deck:"Spanish verbs"`, word: "deck:Spanish verbs", key: "deck", val: "Spanish verbs", quoted: true},
		{text: "is:due", word: "is:due", key: "is", val: "due"},
		{text: `"two words"`, word: "two words", quoted: true},
		{text: "tag:x", word: "tag:x", key: "tag", val: "x"},
		{text: "plain", word: "plain"},
		{text: `"ratio 1:2"`, word: "ratio 1:2", quoted: true},
		{text: `deck:"open`, word: "deck:open", key: "deck", val: "open", quoted: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms =\n%+v\nwant\n%+v", got, want)
	}
	if got := terms("   "); len(got) != 0 {
		t.Errorf("terms of spaces = %+v, want none", got)
	}
}
