// Command gendocs writes the MCP tool reference (docs/mcp-tools.md) from the
// contracts catalog and the served sizes of tools/list, so the reference
// can never drift from what tools/list serves. Run it through `make
// generate`.
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
	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

func main() {
	out := flag.String("out", "docs/mcp-tools.md", "file to write")
	flag.Parse()
	sizes, err := surface.MeasureLists()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, render(contracts.Catalog(), sizes), 0o644); err != nil {
		log.Fatal(err)
	}
}

// property is the part of a JSON Schema the reference shows. Numbers stay
// as written in the schema (json.Number): 10485760, never 1.048576e+07.
type property struct {
	Type                 any                  `json:"type"`
	Description          string               `json:"description"`
	Enum                 []any                `json:"enum"`
	Minimum              *json.Number         `json:"minimum"`
	Maximum              *json.Number         `json:"maximum"`
	MinLength            *json.Number         `json:"minLength"`
	MaxLength            *json.Number         `json:"maxLength"`
	MinItems             *json.Number         `json:"minItems"`
	MaxItems             *json.Number         `json:"maxItems"`
	Format               string               `json:"format"`
	Items                *property            `json:"items"`
	Properties           map[string]*property `json:"properties"`
	Required             []string             `json:"required"`
	AdditionalProperties json.RawMessage      `json:"additionalProperties"`
	AnyOf                []*property          `json:"anyOf"`
}

// decode reads a schema keeping its numbers as written.
func decode(raw json.RawMessage, v any) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		log.Fatal(err)
	}
}

func render(tools []contracts.ToolDef, sizes []surface.ListSizes) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# MCP tool reference\n\n")
	p("Generated from `contracts` by `make generate`; do not edit by hand.\n\n")
	p("%s", rules())
	p("%s", toolsets(tools, sizes))
	p("## Tools\n\n")
	p("| Tool | Title | Toolsets | Scopes | Hints |\n|---|---|---|---|---|\n")
	for _, t := range tools {
		p("| [`%s`](#%s) | %s | %s | %s | %s |\n", t.Name, t.Name, t.Title, strings.Join(t.Sets, ", "), scopes(t), hints(t))
	}
	for _, t := range tools {
		p("\n## %s\n\n**%s.** %s\n\n", t.Name, t.Title, t.Description)
		p("- Toolsets: %s\n", strings.Join(t.Sets, ", "))
		p("- Scopes: %s\n", scopes(t))
		if len(t.AnyScopes) > 0 {
			p("- Each job also needs the scope of the tool that started it: the call is refused (forbidden, naming the scope) for a job of another kind\n")
		}
		p("- Annotations: %s\n", hints(t))
		switch {
		case t.Mutates:
			p("- Mutates: yes; audited as `%s`\n", t.AuditAction)
		case t.MutatesWith != "":
			p("- Mutates: only with `%s`, which also needs %s; audited as `%s`\n", t.MutatesWith, contracts.JoinScopes(t.WriteScopes, ", "), t.AuditAction)
		case t.AuditedRead:
			p("- Mutates: no; audited as `%s` (it hands data out)\n", t.AuditAction)
		default:
			p("- Mutates: no\n")
		}
		if t.Confirm != "" {
			th := contracts.DefaultConfirmThresholds.For(t.Confirm)
			p("- Confirmation: when its dry run counts at least the account's `%s` threshold (default %d; 0 never asks) and the key or app is not trusted, "+
				"the call waits for the person's yes: an elicitation form for a client that declared elicitation, else an isError result with a link to the web app; "+
				"the retry carries the link's id in `%s`\n", t.Confirm, th, contracts.ConfirmArg)
		}
		if t.Confirm != "" && t.JobKind == contracts.JobKindImportPackage {
			p("- Preview: a dry run that needs longer than %s runs as a job of kind `%s` (the call answers with it; `get_job` gives the report); "+
				"until it has succeeded the call itself answers isError, `_meta` errorKind `preview_pending` with the job's id: poll `get_job`, then call again with the same arguments\n",
				"a third of the call (at most 10 s)", contracts.JobKindImportPreview)
		}
		if ui, ok := t.Meta["ui"].(map[string]any); ok {
			p("- MCP Apps widget: `%v`\n", ui["resourceUri"])
		}
		p("\n### Arguments\n\n%s", arguments(t.InputSchema))
		ex, hasExample := contracts.Examples()[t.Name]
		if hasExample {
			p("\nExample arguments:\n\n```json\n%s\n```\n", ex.Args)
		}
		p("\n### Result\n\n%s", result(t.ResultSchema))
		if hasExample {
			out, err := json.Marshal(ex.Result)
			if err != nil {
				log.Fatal(err)
			}
			p("\nExample result (`structuredContent`; the text content carries the same JSON):\n\n```json\n%s\n```\n", out)
		}
	}
	return b.Bytes()
}

// toolsets is the section on toolsets: each set, its tools, and what its
// tools/list costs in served bytes in either era.
func toolsets(tools []contracts.ToolDef, sizes []surface.ListSizes) string {
	var b strings.Builder
	b.WriteString("## Toolsets\n\n")
	fmt.Fprintf(&b, "An agent chooses toolsets by URL (`/mcp/x/study,library`, `/mcp/x/all`), or with the `X-MCP-Toolsets: study,library` header; "+
		"`/mcp/readonly`, `/mcp/x/{sets}/readonly` or `X-MCP-Readonly: true` keep only read-only tools. These URLs are aliases of `/mcp`: "+
		"the same OAuth resource, tokens and metadata. Without a choice the account's default applies: `%s` for a new account "+
		"(accounts that existed before toolsets keep `all`), changed on the agent settings page. A tool outside the chosen sets is an unknown tool.\n\n",
		strings.Join(contracts.LeanToolsets, ","))
	b.WriteString("Bytes are the served `tools/list` response of each protocol era (what a host puts in its model's context); ")
	fmt.Fprintf(&b, "`TestToolsListBudget` holds the default to %d and every tool to %d.\n\n", surface.DefaultListBudget, surface.AllListBudget)
	b.WriteString("| Toolset | What for | Tools | Bytes (2025-11-25) | Bytes (2026-07-28) |\n|---|---|---|---|---|\n")
	byName := map[string]surface.ListSizes{}
	for _, s := range sizes {
		byName[s.Choice] = s
	}
	row := func(name, what string, members []string) {
		s := byName[name]
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %d |\n", name, what, strings.Join(members, ", "), s.Legacy, s.Modern)
	}
	for _, set := range contracts.Toolsets() {
		var members []string
		for _, t := range tools {
			if slices.Contains(t.Sets, set.Name) {
				members = append(members, "`"+t.Name+"`")
			}
		}
		row(set.Name, set.Description, members)
	}
	row("default", "A new account's default.", []string{"those of `" + strings.Join(contracts.LeanToolsets, "` and `") + "`"})
	row(contracts.ToolsetsAll, "Every tool.", []string{"all of the above"})
	b.WriteString("\n")
	return b.String()
}

func scopes(t contracts.ToolDef) string {
	var parts []string
	if len(t.Scopes) > 0 {
		parts = append(parts, "`"+contracts.JoinScopes(t.Scopes, "`, `")+"`")
	}
	if len(t.AnyScopes) > 0 {
		parts = append(parts, "one of `"+contracts.JoinScopes(t.AnyScopes, "`, `")+"`")
	}
	s := strings.Join(parts, " and ")
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
		property
		OneOf []struct {
			Required []string `json:"required"`
		} `json:"oneOf"`
	}
	decode(raw, &s)
	if len(s.Properties) == 0 {
		return "No arguments.\n"
	}
	var b strings.Builder
	b.WriteString("| Argument | Type | Required | Description |\n|---|---|---|---|\n")
	for _, f := range fields(&s.property, "", true) {
		req := "no"
		if f.required {
			req = "yes"
		}
		for _, o := range s.OneOf {
			if f.top && slices.Contains(o.Required, f.path) {
				req = "one of"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.path, typeOf(*f.p), req, cell(f.p.Description))
	}
	if len(s.OneOf) > 0 {
		b.WriteString("\nGive exactly one of the arguments marked \"one of\".\n")
	}
	return b.String()
}

// result describes a tool's structured result.
func result(raw json.RawMessage) string {
	var s property
	decode(raw, &s)
	var b strings.Builder
	b.WriteString("| Field | Type | Always present |\n|---|---|---|\n")
	for _, f := range fields(&s, "", true) {
		always := "no"
		if f.required {
			always = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.path, typeOf(*f.p), always)
	}
	return b.String()
}

// field is one row of a table: a property at a dotted path ("cards[].front").
type field struct {
	path     string
	p        *property
	required bool // required in its own object (and, below the top, its parent is present)
	top      bool
}

// fields flattens the properties of an object schema, nested objects and
// arrays of objects included, required ones first at each level.
func fields(s *property, prefix string, top bool) []field {
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
	var out []field
	for _, n := range names {
		p := s.Properties[n]
		if len(p.AnyOf) > 0 {
			p = p.AnyOf[0] // the nullable form: the value when present
		}
		path := prefix + n
		out = append(out, field{path: path, p: s.Properties[n], required: slices.Contains(s.Required, n), top: top})
		switch {
		case len(p.Properties) > 0:
			out = append(out, fields(p, path+".", false)...)
		case p.Items != nil && len(p.Items.Properties) > 0:
			out = append(out, fields(p.Items, path+"[].", false)...)
		}
	}
	return out
}

// cell makes text safe for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func typeOf(p property) string {
	if len(p.AnyOf) > 0 {
		var alts []string
		for _, a := range p.AnyOf {
			alts = append(alts, typeOf(*a))
		}
		return strings.Join(alts, " or ")
	}
	t := fmt.Sprint(p.Type)
	switch {
	case p.Type == "object" && len(p.Properties) == 0 && len(p.AdditionalProperties) > 0 && p.AdditionalProperties[0] == '{':
		var v property
		decode(p.AdditionalProperties, &v)
		t = "object of " + typeOf(v) + " by name"
	case p.Type == "object":
		t = "object (fields below)"
	}
	if p.Format != "" {
		t += " (" + p.Format + ")"
	}
	if p.Items != nil {
		if len(p.Items.Properties) > 0 {
			t += " of objects (fields below)"
		} else {
			t += " of " + typeOf(*p.Items)
		}
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
		lim = append(lim, num(p.Minimum)+"–"+num(p.Maximum))
	}
	if p.MinLength != nil && p.MinLength.String() != "0" && p.MinLength.String() != "1" {
		lim = append(lim, "≥ "+num(p.MinLength)+" chars")
	}
	if p.MaxLength != nil {
		lim = append(lim, "≤ "+num(p.MaxLength)+" chars")
	}
	if p.MinItems != nil && p.MinItems.String() != "0" {
		lim = append(lim, "≥ "+num(p.MinItems)+" items")
	}
	if p.MaxItems != nil {
		lim = append(lim, "≤ "+num(p.MaxItems)+" items")
	}
	if len(lim) > 0 {
		t += " (" + strings.Join(lim, ", ") + ")"
	}
	return t
}

// num prints a schema number as written.
func num(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}
