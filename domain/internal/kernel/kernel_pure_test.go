package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestCursorRoundTripAndRejects(t *testing.T) {
	id := "0192f0a4-7b1c-7cc3-9a1e-3c5d2b1e4f00"
	c := EncodeCursor(id)
	if strings.ContainsAny(c, "+/=") {
		t.Errorf("cursor %q is not base64url without padding", c)
	}
	got, err := DecodeCursor(c)
	if err != nil || got != id {
		t.Errorf("decodeCursor = %q, %v", got, err)
	}
	if got, err := DecodeCursor(""); err != nil || got != "" {
		t.Errorf("empty cursor = %q, %v", got, err)
	}
	for _, bad := range []string{"!!!", "a", EncodeCursor("has space"), EncodeCursor(strings.Repeat("x", 200)), "_w"} {
		_, err := DecodeCursor(bad)
		if !contracts.IsKind(err, contracts.KindInvalid) || err.Error() != "cursor is not valid; omit it to start from the first page" {
			t.Errorf("decodeCursor(%q) = %v", bad, err)
		}
	}
}

func TestPageCutsAndLinks(t *testing.T) {
	ids := func(s []string) string { return strings.Join(s, ",") }
	p := Page([]string{"a", "b", "c"}, 2, func(s string) string { return s })
	if ids(p.Items) != "a,b" || p.NextCursor != EncodeCursor("b") {
		t.Errorf("page = %+v", p)
	}
	p = Page([]string{"a", "b"}, 2, func(s string) string { return s })
	if ids(p.Items) != "a,b" || p.NextCursor != "" {
		t.Errorf("last page = %+v", p)
	}
	if p := Page[string](nil, 2, nil); p.Items == nil {
		t.Error("empty page must have a non-nil Items")
	}
}

func TestPageLimit(t *testing.T) {
	if n, err := PageLimit(0, 50, 200); n != 50 || err != nil {
		t.Errorf("default: %d %v", n, err)
	}
	if n, err := PageLimit(200, 50, 200); n != 200 || err != nil {
		t.Errorf("max: %d %v", n, err)
	}
	for _, bad := range []int{-1, 201} {
		if _, err := PageLimit(bad, 50, 200); !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(err.Error(), "limit must be 1-200") {
			t.Errorf("pageLimit(%d) = %v", bad, err)
		}
	}
}

func TestBoundSummary(t *testing.T) {
	small := json.RawMessage(`{"deckId":"d1"}`)
	if got := BoundSummary(small, 2048); string(got) != string(small) {
		t.Errorf("small summary changed: %s", got)
	}
	if got := BoundSummary(nil, 2048); string(got) != "{}" {
		t.Errorf("empty summary = %s", got)
	}
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("\"é<", 3000)})
	got := BoundSummary(big, 2048)
	if len(got) > 2048 || !json.Valid(got) {
		t.Fatalf("bounded summary: %d bytes, valid %v", len(got), json.Valid(got))
	}
	var cut struct {
		Truncated bool
		Bytes     int
		Prefix    string
	}
	if err := json.Unmarshal(got, &cut); err != nil || !cut.Truncated || cut.Bytes != len(big) || !strings.HasPrefix(string(big), cut.Prefix) || len(cut.Prefix) < 500 {
		t.Errorf("cut = %+v (%v)", cut, err)
	}
	if got := BoundSummary(json.RawMessage(`{not json`), 2048); !json.Valid(got) {
		t.Errorf("invalid JSON must be replaced: %s", got)
	}
}
