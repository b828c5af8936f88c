// Command gendocs writes the MCP tool reference (docs/mcp-tools.md) from the
// contracts catalog, so the reference can never drift from what tools/list
// serves. Run it through `make generate`.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

func main() {
	out := flag.String("out", "docs/mcp-tools.md", "file to write")
	flag.Parse()
	if err := os.WriteFile(*out, render(contracts.Catalog()), 0o644); err != nil {
		log.Fatal(err)
	}
}

type property struct {
	Type        any    `json:"type"`
	Description string `json:"description"`
	Enum        []any  `json:"enum"`
	Minimum     *float64
	Maximum     *float64
	MinLength   *int `json:"minLength"`
	MaxLength   *int `json:"maxLength"`
	MaxItems    *int `json:"maxItems"`
	Format      string
	Items       *property
}

func render(tools []contracts.ToolDef) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# MCP tool reference\n\n")
	p("Generated from `contracts` by `make generate`; do not edit by hand.\n\n")
	p("| Tool | Title | Scopes | Hints |\n|---|---|---|---|\n")
	for _, t := range tools {
		p("| [`%s`](#%s) | %s | %s | %s |\n", t.Name, t.Name, t.Title, scopes(t), hints(t))
	}
	for _, t := range tools {
		p("\n## %s\n\n**%s.** %s\n\n", t.Name, t.Title, t.Description)
		p("- Scopes: %s\n", scopes(t))
		p("- Annotations: %s\n", hints(t))
		switch {
		case t.Mutates:
			p("- Mutates: yes; audited as `%s`\n", t.AuditAction)
		case t.MutatesWith != "":
			p("- Mutates: only with `%s`, which also needs %s; audited as `%s`\n", t.MutatesWith, contracts.JoinScopes(t.WriteScopes, ", "), t.AuditAction)
		default:
			p("- Mutates: no\n")
		}
		if ui, ok := t.Meta["ui"].(map[string]any); ok {
			p("- MCP Apps widget: `%v`\n", ui["resourceUri"])
		}
		p("\n%s", arguments(t.InputSchema))
		if ex, ok := contracts.Examples()[t.Name]; ok {
			p("\nExample arguments:\n\n```json\n%s\n```\n", ex.Args)
		}
	}
	return b.Bytes()
}

func scopes(t contracts.ToolDef) string {
	s := "`" + contracts.JoinScopes(t.Scopes, "`, `") + "`"
	if len(t.WriteScopes) > 0 {
		s += " (+ `" + contracts.JoinScopes(t.WriteScopes, "`, `") + "` with `" + t.MutatesWith + "`)"
	}
	return s
}

func hints(t contracts.ToolDef) string {
	var h []string
	a := t.Annotations
	if a.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if a.DestructiveHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if !a.OpenWorldHint {
		h = append(h, "closed world")
	}
	return strings.Join(h, ", ")
}

func arguments(raw json.RawMessage) string {
	var s struct {
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required"`
		OneOf      []struct {
			Required []string `json:"required"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		log.Fatal(err)
	}
	if len(s.Properties) == 0 {
		return "No arguments.\n"
	}
	var b strings.Builder
	b.WriteString("| Argument | Type | Required | Description |\n|---|---|---|---|\n")
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.SortFunc(names, func(x, y string) int {
		rx, ry := slices.Contains(s.Required, x), slices.Contains(s.Required, y)
		if rx != ry {
			if rx {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	for _, n := range names {
		prop := s.Properties[n]
		req := "no"
		if slices.Contains(s.Required, n) {
			req = "yes"
		}
		for _, o := range s.OneOf {
			if slices.Contains(o.Required, n) {
				req = "one of"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", n, typeOf(prop), req, strings.ReplaceAll(prop.Description, "|", "\\|"))
	}
	if len(s.OneOf) > 0 {
		b.WriteString("\nGive exactly one of the arguments marked \"one of\".\n")
	}
	return b.String()
}

func typeOf(p property) string {
	t := fmt.Sprint(p.Type)
	if p.Format != "" {
		t += " (" + p.Format + ")"
	}
	if p.Items != nil {
		t += " of " + typeOf(*p.Items)
	}
	if len(p.Enum) > 0 {
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			vals[i] = fmt.Sprintf("`%v`", v)
		}
		t += ": " + strings.Join(vals, ", ")
	}
	var lim []string
	if p.Minimum != nil || p.Maximum != nil {
		lim = append(lim, fmt.Sprintf("%v–%v", deref(p.Minimum), deref(p.Maximum)))
	}
	if p.MaxLength != nil {
		lim = append(lim, fmt.Sprintf("≤ %d chars", *p.MaxLength))
	}
	if p.MaxItems != nil {
		lim = append(lim, fmt.Sprintf("≤ %d items", *p.MaxItems))
	}
	if len(lim) > 0 {
		t += " (" + strings.Join(lim, ", ") + ")"
	}
	return t
}

func deref(f *float64) string {
	if f == nil {
		return ""
	}
	return fmt.Sprint(*f)
}
