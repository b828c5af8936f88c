package mcpcore

import (
	"context"
	"strings"
)

// Principal is the authenticated caller. The transport's caller (the
// apiserver's auth middleware, or the stdio command) resolves credentials
// and stores the principal in the context with WithPrincipal.
type Principal struct {
	UserID         string
	Scopes         []string // granted scopes
	CredentialKind string   // e.g. "api_key", "oauth", "session"
	CredentialID   string   // key id or OAuth client id; never a secret
	OAuth          bool     // insufficient scope answers 403 + WWW-Authenticate
}

type principalKey struct{}

// WithPrincipal returns a context carrying p. When a principal is present,
// tools and resources are filtered and enforced by scope.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, &p)
}

// PrincipalFrom returns the principal stored by WithPrincipal.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	if !ok || p == nil {
		return Principal{}, false
	}
	return *p, true
}

// HasScopes reports whether the principal was granted every scope in need.
func (p Principal) HasScopes(need ...string) bool { return hasAll(p.Scopes, need) }

// hasAny reports whether granted holds one of anyOf; an empty anyOf is met.
func hasAny(granted, anyOf []string) bool {
	if len(anyOf) == 0 {
		return true
	}
	for _, a := range anyOf {
		for _, g := range granted {
			if g == a {
				return true
			}
		}
	}
	return false
}

// allows reports whether granted scopes let a caller see and call the
// tool: all of its Scopes and one of its AnyScopes.
func (te *toolEntry) allows(granted []string) bool {
	return hasAll(granted, te.scopes) && hasAny(granted, te.any)
}

// scopeError is the -32003 error of a call the granted scopes do not
// allow, or nil when they do.
func (te *toolEntry) scopeError(granted []string) *Error {
	if !hasAll(granted, te.scopes) {
		return ScopeError(te.scopes)
	}
	if !hasAny(granted, te.any) {
		return AnyScopeError(te.scopes, te.any)
	}
	return nil
}

// hasAll reports whether need ⊆ granted.
func hasAll(granted, need []string) bool {
outer:
	for _, n := range need {
		for _, g := range granted {
			if g == n {
				continue outer
			}
		}
		return false
	}
	return true
}

// NarrowScopes intersects granted with the scopes named in header (the
// x-mcp-scopes request header: tokens separated by spaces or commas). A
// malformed header, or one that names nothing, narrows to no scopes: a
// caller may narrow its grant but never widen it.
func NarrowScopes(granted []string, header string) []string {
	tokens, ok := parseScopeHeader(header)
	if !ok {
		return []string{}
	}
	out := make([]string, 0, len(tokens))
	for _, g := range granted {
		for _, t := range tokens {
			if g == t {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// parseScopeHeader splits a scope list. Tokens use the RFC 6749 scope-token
// alphabet (visible ASCII except '"' and '\'); ',' also separates.
func parseScopeHeader(h string) ([]string, bool) {
	fields := strings.FieldsFunc(h, func(r rune) bool { return r == ' ' || r == ',' })
	if len(fields) == 0 {
		return nil, false
	}
	for _, f := range fields {
		for i := 0; i < len(f); i++ {
			c := f[i]
			if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
				return nil, false
			}
		}
	}
	return fields, true
}
