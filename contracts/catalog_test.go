package contracts_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/takhtabush/takhtabush/contracts"
)

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

func compile(t *testing.T, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", name, err)
	}
	return s
}

func TestCatalogDefinitions(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range contracts.Catalog() {
		if !toolName.MatchString(tool.Name) {
			t.Errorf("tool name %q is not snake_case of at most 64 characters", tool.Name)
		}
		if seen[tool.Name] {
			t.Errorf("duplicate tool %q", tool.Name)
		}
		seen[tool.Name] = true
		if tool.Title == "" || tool.Description == "" {
			t.Errorf("%s: title and description are required", tool.Name)
		}
		if len(tool.Description) > 300 {
			t.Errorf("%s: description is %d bytes; keep it under 300, agents pay for every byte", tool.Name, len(tool.Description))
		}
		if len(tool.Scopes) == 0 && len(tool.AnyScopes) == 0 {
			t.Errorf("%s: no scopes", tool.Name)
		}
		for _, s := range slices.Concat(tool.Scopes, tool.AnyScopes, tool.WriteScopes) {
			if !s.Valid() {
				t.Errorf("%s: unknown scope %q", tool.Name, s)
			}
		}
		if writes := tool.Mutates || tool.MutatesWith != ""; writes == tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: can write=%v but readOnlyHint=%v", tool.Name, writes, tool.Annotations.ReadOnlyHint)
		}
		if tool.WritesAs != "" {
			if w, ok := contracts.Tool(tool.WritesAs); !ok || !w.Mutates {
				t.Errorf("%s: WritesAs %q is not a mutating tool", tool.Name, tool.WritesAs)
			}
		}
		for _, arg := range tool.ExactlyOneOf {
			if !strings.Contains(string(tool.InputSchema), `"`+arg+`":`) {
				t.Errorf("%s: ExactlyOneOf names %q, which is not an argument", tool.Name, arg)
			}
		}
		if (tool.Mutates || tool.MutatesWith != "" || tool.AuditedRead) != (tool.AuditAction != "") {
			t.Errorf("%s: a mutating or audited tool needs an audit action, and only such a tool has one", tool.Name)
		}
		if tool.AuditedRead && (tool.Mutates || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("%s: an audited read is a read", tool.Name)
		}
		if tool.Mutates {
			for _, s := range tool.Scopes {
				if !strings.HasSuffix(string(s), ":write") {
					t.Errorf("%s: mutating tool requires non-write scope %s", tool.Name, s)
				}
			}
		} else if tool.MutatesWith == "" {
			for _, s := range tool.Scopes {
				if !strings.HasSuffix(string(s), ":read") {
					t.Errorf("%s: read tool requires scope %s", tool.Name, s)
				}
			}
		}
		in := compile(t, tool.Name+".input.json", tool.InputSchema)
		compile(t, tool.Name+".listed.json", tool.ListedInput)
		if tool.ListOutput {
			compile(t, tool.Name+".output.json", tool.OutputSchema)
		} else if tool.OutputSchema != nil {
			t.Errorf("%s: an OutputSchema without ListOutput", tool.Name)
		}
		compile(t, tool.Name+".result.json", tool.ResultSchema)
		var top map[string]any
		if err := json.Unmarshal(tool.InputSchema, &top); err != nil || top["type"] != "object" {
			t.Errorf("%s: input schema must be an object schema", tool.Name)
		}
		// Model APIs (Anthropic, OpenAI, Bedrock) refuse a tool whose input
		// schema combines schemas at the top level, and some hosts then drop
		// the whole connector: say it in the description instead.
		for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$ref"} {
			if _, ok := top[k]; ok {
				t.Errorf("%s: input schema has %q at the top level", tool.Name, k)
			}
		}
		// The empty object is rejected exactly when the tool has required arguments.
		err := in.Validate(map[string]any{})
		_, hasRequired := top["required"]
		_, hasOneOf := top["oneOf"]
		if (err != nil) != (hasRequired || hasOneOf) {
			t.Errorf("%s: empty arguments validate=%v, but required=%v", tool.Name, err, hasRequired)
		}
	}
	for name := range seen {
		if !slices.Contains(designTools, name) {
			t.Errorf("catalog tool %s is not named in DESIGN.md's tool catalog", name)
		}
	}
	if len(seen) < 17 {
		t.Errorf("catalog has %d tools, fewer than the first 17", len(seen))
	}
}

// designTools are the tool names DESIGN.md §2 fixes, list_trash, which
// issue 10 §3 added beside restore_items so an agent can see what it may
// restore, undo_changes, which issue 26 §2 added, undo_last_rating,
// the study widget's app-only undo (issue 25 §2.3), and bury_cards and
// unbury (issue 27), filtered_deck (issue 28 §4) and get_retention_advice
// (issue 28 §3).
var designTools = []string{
	"list_trash", "undo_changes", "undo_last_rating",
	"list_decks", "get_deck", "search_cards", "get_study_snapshot", "get_stats", "get_study_plan",
	"create_deck", "update_deck", "delete_deck", "add_cards", "update_cards", "delete_cards", "import_cards",
	"start_study_session", "submit_review", "request_media_upload", "render_study_session",
	"get_settings", "update_settings", "reschedule_cards", "import_package", "export_deck", "optimize_parameters",
	"get_job", "cancel_job", "restore_items", "add_notes", "update_notes", "get_note",
	"bury_cards", "unbury", // issue 27
	"filtered_deck",        // issue 28 §4
	"get_retention_advice", // issue 28 §3
}

func TestToolLookup(t *testing.T) {
	tool, ok := contracts.Tool(contracts.ToolAddCards)
	if !ok || !tool.Mutates || tool.AuditAction != "cards.add" {
		t.Fatalf("Tool(add_cards) = %+v, %v", tool, ok)
	}
	if _, ok := contracts.Tool("nope"); ok {
		t.Fatal("Tool(nope) found")
	}
	// Catalog returns a copy: changing it does not change the catalog.
	c := contracts.Catalog()
	c[0].Name = "changed"
	if contracts.Catalog()[0].Name == "changed" {
		t.Fatal("Catalog exposes its backing array")
	}
}

// The job tools reach every job a credential may have started: their
// AnyScopes are exactly the scopes of the tools that start jobs (a job
// kind of its own, or a call run as a task), and only they use AnyScopes.
func TestJobToolsAnyScopes(t *testing.T) {
	var starters []contracts.Scope
	for _, tool := range contracts.Catalog() {
		if tool.JobKind != "" || tool.TaskSupport != "" {
			for _, s := range tool.Scopes {
				if !slices.Contains(starters, s) {
					starters = append(starters, s)
				}
			}
		}
	}
	slices.Sort(starters)
	if len(starters) < 2 {
		t.Fatalf("job-starting scopes = %v; want import's and optimisation's", starters)
	}
	if opt, _ := contracts.Tool(contracts.ToolOptimizeParameters); !slices.Equal(opt.Scopes, []contracts.Scope{contracts.ScopeStudyWrite}) {
		t.Errorf("optimize_parameters needs %v; it changes scheduling weights, so study:write", opt.Scopes)
	}
	for _, tool := range contracts.Catalog() {
		jobTool := tool.Name == contracts.ToolGetJob || tool.Name == contracts.ToolCancelJob
		if !jobTool {
			if len(tool.AnyScopes) > 0 {
				t.Errorf("%s has AnyScopes %v; only the job tools do", tool.Name, tool.AnyScopes)
			}
			continue
		}
		got := slices.Sorted(slices.Values(tool.AnyScopes))
		if len(tool.Scopes) != 0 || !slices.Equal(got, starters) {
			t.Errorf("%s: Scopes %v AnyScopes %v; want no Scopes and AnyScopes %v", tool.Name, tool.Scopes, tool.AnyScopes, starters)
		}
		for _, s := range starters {
			if !tool.Allows([]contracts.Scope{s}) {
				t.Errorf("%s refuses a credential with only %s", tool.Name, s)
			}
		}
		if tool.Allows([]contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStatsRead, contracts.ScopeMediaWrite, contracts.ScopeStudyRender}) {
			t.Errorf("%s allows a credential that can start no job", tool.Name)
		}
	}
}
