package mcpcore

import (
	"context"
	"strings"
)

// Resource is a directly addressable resource.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations *Annotations
	Meta        map[string]any
	// Scopes must all be granted to list or read it.
	Scopes []string
	// Unlisted resources are readable but left out of resources/list
	// (e.g. an MCP Apps view reached through a tool's _meta.ui.resourceUri).
	Unlisted bool
	// Read returns the contents. Nil means no contents can be read.
	Read ResourceHandler
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template; simple {var} expressions are matched on read.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations *Annotations
	Meta        map[string]any
	Scopes      []string
	Read        ResourceHandler
	// Complete suggests values for a template variable (completion/complete).
	Complete func(ctx context.Context, variable, value string) ([]string, error)
}

// ResourceHandler reads a resource. Return ResourceNotFound for an unknown
// instance of a template.
type ResourceHandler func(ctx context.Context, req *ReadRequest) ([]ResourceContents, error)

// ReadRequest is one resources/read as seen by a handler.
type ReadRequest struct {
	Request
	URI string
	// Vars holds the template variables matched from the URI.
	Vars map[string]string
}

// ResourceNotFound returns the error for an unknown URI; the engine maps
// it to -32002 (handshake era) or -32602 with data.uri (modern era).
func ResourceNotFound(uri string) *Error {
	return &Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: map[string]any{"uri": uri}}
}

// uriTemplate is a compiled level-1 RFC 6570 template.
type uriTemplate struct {
	lits []string // literal parts; len(lits) == len(vars)+1
	vars []string
}

func parseURITemplate(t string) (uriTemplate, bool) {
	var ut uriTemplate
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			if strings.IndexByte(t, '}') >= 0 {
				return ut, false
			}
			ut.lits = append(ut.lits, t)
			return ut, true
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return ut, false
		}
		name := t[i+1 : i+j]
		if name == "" || strings.ContainsAny(name, "{+#./;?&=,!@|") {
			return ut, false
		}
		ut.lits = append(ut.lits, t[:i])
		ut.vars = append(ut.vars, name)
		t = t[i+j+1:]
	}
}

// match returns the variables when uri matches; each variable matches a
// non-empty run of characters other than '/'.
func (ut uriTemplate) match(uri string) (map[string]string, bool) {
	if !strings.HasPrefix(uri, ut.lits[0]) {
		return nil, false
	}
	rest := uri[len(ut.lits[0]):]
	vars := make(map[string]string, len(ut.vars))
	for i, v := range ut.vars {
		next := ut.lits[i+1]
		var val string
		if next == "" && i == len(ut.vars)-1 {
			val, rest = rest, ""
		} else if next == "" {
			return nil, false
		} else {
			k := strings.Index(rest, next)
			if k < 0 {
				return nil, false
			}
			val, rest = rest[:k], rest[k+len(next):]
		}
		if val == "" || strings.IndexByte(val, '/') >= 0 {
			return nil, false
		}
		vars[v] = val
	}
	if rest != "" {
		return nil, false
	}
	return vars, true
}
