package mcpcore

import (
	"slices"
	"strings"
	"testing"
)

// FuzzNarrowScopes holds the x-mcp-scopes rule for any header: the result
// is a subset of the grant in the grant's order (a caller narrows, never
// widens), every scope in it was named by the header, and a header with a
// character outside the scope-token alphabet (or naming nothing) narrows
// to no scopes.
func FuzzNarrowScopes(f *testing.F) {
	for _, h := range []string{"decks:read", "decks:read stats:read", "decks:read,decks:write", " , ", "", "decks:read\x00",
		"decks:read \"x\"", "DECKS:READ", "decks:write decks:write", "study:render\tstats:read", "é"} {
		f.Add("decks:read decks:write stats:read study:write", h)
	}
	f.Fuzz(func(t *testing.T, grantList, header string) {
		granted := strings.Fields(grantList)
		got := NarrowScopes(granted, header)
		if got == nil {
			t.Fatal("nil result")
		}
		named := strings.FieldsFunc(header, func(r rune) bool { return r == ' ' || r == ',' })
		valid := len(named) > 0
		for i := 0; i < len(header); i++ {
			if c := header[i]; c != ' ' && c != ',' && (c < 0x21 || c > 0x7e || c == '"' || c == '\\') {
				valid = false
			}
		}
		if !valid && len(got) != 0 {
			t.Fatalf("invalid header %q widened to %v", header, got)
		}
		j := 0
		for _, s := range got {
			if !slices.Contains(named, s) {
				t.Fatalf("%q: %s was not named", header, s)
			}
			for j < len(granted) && granted[j] != s {
				j++
			}
			if j == len(granted) {
				t.Fatalf("%q: %v is not a subsequence of the grant %v", header, got, granted)
			}
			j++
		}
	})
}
