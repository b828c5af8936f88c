package contracts

import (
	"fmt"
	"slices"
	"strings"
)

// Scope names one permission a credential can carry.
type Scope string

// The six scopes. A tool needs all of the scopes its definition lists.
const (
	ScopeDecksRead   Scope = "decks:read"   // list decks, read cards, study snapshots
	ScopeStatsRead   Scope = "stats:read"   // statistics and study plans
	ScopeDecksWrite  Scope = "decks:write"  // create, update, delete and import decks and cards
	ScopeStudyWrite  Scope = "study:write"  // study sessions, reviews, rescheduling and weight optimisation
	ScopeMediaWrite  Scope = "media:write"  // request media upload intents
	ScopeStudyRender Scope = "study:render" // the MCP Apps study widget and its resources
)

// AllScopes lists every scope in a stable order.
var AllScopes = []Scope{ScopeDecksRead, ScopeStatsRead, ScopeDecksWrite, ScopeStudyWrite, ScopeMediaWrite, ScopeStudyRender}

// Valid reports whether s is one of the six scopes.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

// ParseScopes parses a comma- or space-separated scope list. It returns an
// invalid-kind error naming the first unknown scope; duplicates are dropped
// and the result is in AllScopes order.
func ParseScopes(list string) ([]Scope, error) {
	fields := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	seen := make(map[Scope]bool, len(fields))
	for _, f := range fields {
		s := Scope(f)
		if !s.Valid() {
			return nil, Errorf(KindInvalid, "unknown scope %q; valid scopes are %s", f, JoinScopes(AllScopes, ", "))
		}
		seen[s] = true
	}
	out := make([]Scope, 0, len(seen))
	for _, s := range AllScopes {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// JoinScopes joins scopes with sep.
func JoinScopes(scopes []Scope, sep string) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, sep)
}

// ScopeStrings converts scopes to plain strings.
func ScopeStrings(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// HasScopes reports whether granted contains every scope in need.
func HasScopes(granted, need []Scope) bool {
	for _, n := range need {
		if !slices.Contains(granted, n) {
			return false
		}
	}
	return true
}

// HasAnyScope reports whether granted contains at least one scope of any;
// an empty any asks for nothing and is always met.
func HasAnyScope(granted, any []Scope) bool {
	if len(any) == 0 {
		return true
	}
	for _, a := range any {
		if slices.Contains(granted, a) {
			return true
		}
	}
	return false
}

// String implements fmt.Stringer.
func (s Scope) String() string { return string(s) }

var _ fmt.Stringer = Scope("")
