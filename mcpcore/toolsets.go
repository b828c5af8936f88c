package mcpcore

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Toolsets let a client keep only part of a large catalog in its model's
// context. A server declares its sets (Options.Toolsets) and each tool
// names the sets it belongs to (Tool.Sets); a request chooses sets by
// the path it was sent to (WithToolSelection, set by the router) or by
// the X-MCP-Toolsets header, and may narrow them to read-only tools
// (X-MCP-Readonly: true). Without a choice, Options.DefaultToolsets
// decides. A tool outside the chosen sets is not listed and a call of it
// is an unknown tool, as if it did not exist.

// Toolset is one named group of tools.
type Toolset struct {
	// Name is what a client writes in a path or header: [a-z0-9_-].
	Name string
	// Description says, for people and documentation, what the set is for.
	Description string
	// Instructions are added to Options.Instructions when the set is chosen.
	Instructions string
}

// AllToolsets is the set name that chooses every set.
const AllToolsets = "all"

// The headers that choose toolsets, in both eras.
const (
	HeaderToolsets = "X-MCP-Toolsets"
	HeaderReadonly = "X-MCP-Readonly"
)

// ToolSelection is a request's choice of tools.
type ToolSelection struct {
	// Sets are the chosen set names (AllToolsets for every one); nil
	// leaves the choice to Options.DefaultToolsets.
	Sets []string
	// ReadOnly keeps only tools whose annotations say readOnlyHint.
	ReadOnly bool
}

type selectionKey struct{}

// WithToolSelection returns a context carrying a selection made by the
// URL a request was sent to. It takes precedence over the headers' sets;
// read-only from either applies.
func WithToolSelection(ctx context.Context, sel ToolSelection) context.Context {
	return context.WithValue(ctx, selectionKey{}, sel)
}

// ParseToolsets splits a comma-separated list of set names ("study,library")
// as paths and headers carry it: spaces trimmed, empty names and repeats
// dropped. It does not check the names against a server (see
// Server.CheckToolsets).
func ParseToolsets(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// CheckToolsets returns an invalid-params error naming the known sets
// when a name is not one of the server's sets (or AllToolsets).
func (s *Server) CheckToolsets(names []string) *Error {
	for _, n := range names {
		if n != AllToolsets && !s.hasSet(n) {
			known := []string{AllToolsets}
			for _, t := range s.opts.Toolsets {
				known = append(known, t.Name)
			}
			return InvalidParams("Invalid params: unknown toolset %q; known: %s", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// Toolsets returns the server's declared sets.
func (s *Server) Toolsets() []Toolset { return slices.Clone(s.opts.Toolsets) }

func (s *Server) hasSet(name string) bool {
	return slices.ContainsFunc(s.opts.Toolsets, func(t Toolset) bool { return t.Name == name })
}

// selection is a request's resolved choice: which sets (nil: every tool)
// and whether only read-only tools.
type selection struct {
	done     bool
	sets     []string
	all      bool
	readOnly bool
	noApps   bool // a modern request whose client did not declare UIExtension
}

// filters reports whether the selection hides anything.
func (sel *selection) filters() bool { return !sel.all || sel.readOnly || sel.noApps }

// UIExtension is the MCP Apps extension a client declares in its
// capabilities to render widgets.
const UIExtension = "io.modelcontextprotocol/ui"

// includes reports whether a tool is in the selection. A tool that names
// no set is in every one. An app-only tool (_meta.ui.visibility ["app"])
// is left out for a 2026-07-28 client that did not declare the MCP Apps
// extension: nothing it runs could call it.
func (sel *selection) includes(te *toolEntry) bool {
	if sel.noApps && te.appOnly {
		return false
	}
	if sel.readOnly && (te.def.Annotations == nil || te.def.Annotations.ReadOnlyHint == nil || !*te.def.Annotations.ReadOnlyHint) {
		return false
	}
	if sel.all || len(te.def.Sets) == 0 {
		return true
	}
	for _, n := range te.def.Sets {
		if slices.Contains(sel.sets, n) {
			return true
		}
	}
	return false
}

// selection resolves, once per request, the tools it chose: the path's
// sets, else the header's, else the default; read-only from the path or
// the header.
func (x *exchange) selection(ctx context.Context) (*selection, error) {
	sel := &x.sel
	if sel.done {
		return sel, nil
	}
	var sets []string
	chosen, _ := ctx.Value(selectionKey{}).(ToolSelection)
	sel.readOnly = chosen.ReadOnly
	var h http.Header = x.tr.header
	if h != nil {
		if v := strings.TrimSpace(h.Get(HeaderReadonly)); v != "" {
			switch strings.ToLower(v) {
			case "true", "1":
				sel.readOnly = true
			case "false", "0":
			default:
				return nil, InvalidParams("Invalid params: %s must be true or false", HeaderReadonly)
			}
		}
	}
	switch {
	case chosen.Sets != nil:
		sets = chosen.Sets
	case h != nil && h.Get(HeaderToolsets) != "":
		sets = ParseToolsets(h.Get(HeaderToolsets))
		if len(sets) == 0 {
			return nil, InvalidParams("Invalid params: %s names no toolset", HeaderToolsets)
		}
	case x.s.opts.DefaultToolsets != nil:
		d, err := x.s.opts.DefaultToolsets(ctx)
		if err != nil {
			return nil, err
		}
		sets = d
	}
	if err := x.s.CheckToolsets(sets); err != nil {
		return nil, err
	}
	sel.sets = sets
	sel.noApps = x.modern && !declaresExtension(x.p.metaClientCaps, UIExtension)
	sel.all = len(x.s.opts.Toolsets) == 0 || len(sets) == 0 || slices.Contains(sets, AllToolsets)
	sel.done = true
	return sel, nil
}

// instructions returns Options.Instructions followed by those of the
// chosen sets, in declaration order.
func (x *exchange) instructions(ctx context.Context) (string, error) {
	base := x.s.opts.Instructions
	if len(x.s.opts.Toolsets) == 0 {
		return base, nil
	}
	sel, err := x.selection(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(base)
	for _, t := range x.s.opts.Toolsets {
		if t.Instructions == "" || !(sel.all || slices.Contains(sel.sets, t.Name)) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Instructions)
	}
	return b.String(), nil
}

// declaresExtension reports whether client capabilities (JSON) list ext
// under "extensions".
func declaresExtension(caps []byte, ext string) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	_, ok := c.Extensions[ext]
	return ok
}

// appOnly reports whether a tool's _meta.ui.visibility is exactly ["app"].
func appOnly(meta map[string]any) bool {
	ui, _ := meta["ui"].(map[string]any)
	switch v := ui["visibility"].(type) {
	case []string:
		return len(v) == 1 && v[0] == "app"
	case []any:
		return len(v) == 1 && v[0] == "app"
	}
	return false
}
