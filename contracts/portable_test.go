package contracts_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// portableKeywords are the JSON Schema keywords every common model
// provider's tool-schema dialect accepts (OpenAI, Anthropic, Gemini's
// OpenAPI subset). $ref/$defs, oneOf/allOf/not, if/then/else, const,
// pattern(Properties), prefixItems, exclusive bounds, multipleOf and
// uniqueItems are refused by at least one of them.
var portableKeywords = []string{
	"type", "description", "title", "properties", "required", "additionalProperties", "items",
	"enum", "format", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "anyOf",
}

// portableFormats are the string formats all of them accept.
var portableFormats = []string{"date-time"}

// Every input and output schema of the catalog is portable: one type (a
// string) per schema node, null only as anyOf [X, {"type":"null"}], only
// portable keywords and formats, and closed objects.
func TestSchemasArePortable(t *testing.T) {
	for _, def := range contracts.Catalog() {
		for side, raw := range map[string]json.RawMessage{"input": def.InputSchema, "result": def.ResultSchema} {
			var root map[string]any
			if err := json.Unmarshal(raw, &root); err != nil {
				t.Fatalf("%s %s schema: %v", def.Name, side, err)
			}
			if root["type"] != "object" {
				t.Errorf("%s %s schema: the root is not an object", def.Name, side)
			}
			for _, p := range portabilityProblems(root, "") {
				t.Errorf("%s %s schema: %s", def.Name, side, p)
			}
		}
	}
}

// The walk finds what it must: a schema written the unportable ways fails.
func TestPortabilityCheckFinds(t *testing.T) {
	var bad map[string]any
	_ = json.Unmarshal([]byte(`{"type":"object","additionalProperties":false,"properties":{
		"a":{"type":["string","null"]},
		"b":{"oneOf":[{"type":"string"},{"type":"integer"}]},
		"c":{"type":"string","format":"date"},
		"d":{"type":"object","properties":{}},
		"e":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"f":{"description":"no type"}}}`), &bad)
	got := strings.Join(portabilityProblems(bad, ""), "\n")
	for _, want := range []string{"/a: type", "/b: keyword oneOf", "/c: format date", "/d: an open object", "/e: anyOf", "/f: no type"} {
		if !strings.Contains(got, want) {
			t.Errorf("the check misses %q; it found:\n%s", want, got)
		}
	}
}

func portabilityProblems(s map[string]any, path string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(portableKeywords, k) {
			add("keyword %s is not portable", k)
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		if len(alts) != 2 || !isNullSchema(alts[1]) {
			add("anyOf is only for nullable values: [X, {\"type\":\"null\"}]")
		}
		if first, ok := alts[0].(map[string]any); ok {
			out = append(out, portabilityProblems(first, path)...)
		}
		return out
	}
	typ, isString := s["type"].(string)
	switch {
	case s["type"] == nil:
		add("no type")
	case !isString:
		add("type %v is not one type: write null as anyOf", s["type"])
	}
	if f, ok := s["format"].(string); ok && !slices.Contains(portableFormats, f) {
		add("format %s is not portable", f)
	}
	if typ == "object" {
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if ap {
				add("an open object: say additionalProperties false")
			}
		case map[string]any:
			out = append(out, portabilityProblems(ap, path+"/*")...)
		default:
			add("an open object: say additionalProperties")
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if p, ok := props[n].(map[string]any); ok {
				out = append(out, portabilityProblems(p, path+"/"+n)...)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		out = append(out, portabilityProblems(items, path+"/items")...)
	}
	return out
}

func isNullSchema(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 1 && m["type"] == "null"
}
