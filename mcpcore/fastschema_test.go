package mcpcore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/internal/conformance"
)

// The fast path of argument validation must agree with the full validator
// whenever it answers: "valid" only for documents the full validator
// accepts, "invalid" only for documents it rejects. These tests generate
// documents around every boundary of every schema the engine meets in
// tests and in Takhtabush, valid and invalid, and compare the two.

// testSchema is a named schema and whether it must have a fast path.
type testSchema struct {
	name     string
	raw      json.RawMessage
	needFast bool
}

// keywordSchemas exercise the subset's keywords beyond what the tools use.
var keywordSchemas = []string{
	`{"type":"object","properties":{"a":{"type":["string","null"],"minLength":2},"b":{"type":["integer","null"]}},"additionalProperties":{"type":"integer","minimum":0}}`,
	`{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":10}},"required":["x"]}`,
	`{"type":"object","properties":{"x":{"const":"on"},"y":{"enum":["a","é","\u00e9x","a\"b"]}},"additionalProperties":false}`,
	`{"type":"object","properties":{"x":{"type":"integer","minimum":-0,"maximum":0}},"required":["x"],"additionalProperties":false}`,
	`{"type":"object","properties":{"x":true,"y":false,"z":{}},"additionalProperties":true}`,
	`{"type":"object","anyOf":[{"required":["a"]},{"required":["b"],"properties":{"b":{"type":"string"}}}],"not":{"required":["c"]}}`,
	`{"type":"object","allOf":[{"properties":{"n":{"type":"integer","minimum":1}}},{"properties":{"n":{"maximum":5}}}],"oneOf":[{"properties":{"n":{"type":"integer","maximum":2}}},{"properties":{"n":{"type":"integer","minimum":2}}}]}`,
	`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string","enum":["a","b"]}},"required":["k"],"additionalProperties":false},"minItems":1,"maxItems":3},"free":{"type":"array"}},"additionalProperties":false}`,
	`{"type":"object","properties":{"q":{"type":"string","maxLength":3},"t":{"type":"boolean"},"n":{"type":"null"}},"required":["q"]}`,
	`{"type":"object","properties":{"big":{"type":"integer","minimum":-9223372036854775809,"maximum":18446744073709551616},"f":{"type":"number","minimum":0.7,"maximum":0.99}}}`,
	`{"properties":{"a":{"type":"string"}},"required":["a"]}`,
}

// slowOnlySchemas use keywords outside the subset: no fast path.
var slowOnlySchemas = []string{
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`,
	`{"type":"object","properties":{"a":{"type":"number","multipleOf":0.5}}}`,
	`{"type":"object","properties":{"a":{"enum":["x",1]}}}`,
	`{"type":"object","properties":{"a":{"type":"number","minimum":1e3}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
	`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}`,
}

func allTestSchemas(t *testing.T) []testSchema {
	var out []testSchema
	add := func(name string, raw json.RawMessage, needFast bool) {
		if raw != nil {
			out = append(out, testSchema{name, raw, needFast})
		}
	}
	for _, d := range contracts.Catalog() {
		add("contracts/"+d.Name+"/input", d.InputSchema, true)
		add("contracts/"+d.Name+"/output", d.OutputSchema, true)
	}
	for _, tool := range conformance.Catalog().Tools {
		add("conformance/"+tool.Name, tool.InputSchema, false)
	}
	add("engine_test/echo", json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`), true)
	add("bench_test/echo", echoSchema, true)
	add("bench_test/records", json.RawMessage(`{"type":"object"}`), true)
	add("bench/echo", json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"Text to send back."}},"required":["message"],"additionalProperties":false}`), true)
	add("bench/list_decks", json.RawMessage(`{"type":"object","additionalProperties":false}`), true)
	add("default", json.RawMessage(`{"type":"object","additionalProperties":false}`), true)
	for i, s := range keywordSchemas {
		add("keywords/"+strconv.Itoa(i), json.RawMessage(s), true)
	}
	for i, s := range slowOnlySchemas {
		add("slow/"+strconv.Itoa(i), json.RawMessage(s), false)
	}
	return out
}

func compileAll(t *testing.T) map[string]*mcpcore.CompiledSchema {
	t.Helper()
	out := map[string]*mcpcore.CompiledSchema{}
	for _, ts := range allTestSchemas(t) {
		c, err := mcpcore.CompileForTest(ts.raw)
		if err != nil {
			t.Fatalf("%s: %v", ts.name, err)
		}
		if ts.needFast && !c.HasFast() {
			t.Errorf("%s: no fast path for %s", ts.name, ts.raw)
		}
		out[ts.name] = c
	}
	return out
}

func TestFastPathSubset(t *testing.T) {
	compileAll(t)
	for _, s := range slowOnlySchemas {
		c, err := mcpcore.CompileForTest(json.RawMessage(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if c.HasFast() {
			t.Errorf("fast path for a schema outside the subset: %s", s)
		}
	}
}

// agree compares the fast verdict on doc with the full validator.
func agree(t *testing.T, name string, c *mcpcore.CompiledSchema, doc []byte) (fast string, ok bool) {
	t.Helper()
	full := c.Full(doc)
	fast = c.Fast(doc)
	switch {
	case fast == "valid" && full != nil:
		t.Errorf("%s: fast path accepts %s; full validator: %v", name, doc, full)
		return fast, false
	case fast == "invalid" && full == nil:
		t.Errorf("%s: fast path rejects %s; full validator accepts it", name, doc)
		return fast, false
	}
	if got := c.Violations(doc); !slices.Equal(got, full) {
		t.Errorf("%s: served violations %v, full %v for %s", name, got, full, doc)
		return fast, false
	}
	return fast, true
}

// TestFastPathAgreesWithFullValidator is the differential property test.
func TestFastPathAgreesWithFullValidator(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for _, ts := range allTestSchemas(t) {
		c, err := mcpcore.CompileForTest(ts.raw)
		if err != nil || !c.HasFast() {
			continue
		}
		var sch any
		dec := json.NewDecoder(bytes.NewReader(ts.raw))
		dec.UseNumber()
		if err := dec.Decode(&sch); err != nil {
			t.Fatal(err)
		}
		t.Run(ts.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(ts.name))))
			counts := map[string]int{}
			validSeen := 0
			// Schemas with many integer fields rarely yield a valid document
			// the fast path may answer (the generator also writes 7.0, 7e+00
			// and duplicate keys, which it leaves to the full validator), so
			// sampling goes on, up to 10n documents, until one does.
			for i := 0; i < n || (i < 10*n && validSeen > 0 && counts["valid"] == 0); i++ {
				g := &docGen{r: r, mutate: i%3 != 0}
				doc := []byte(g.value(sch, 0))
				if !json.Valid(doc) {
					t.Fatalf("generator produced invalid JSON: %s", doc)
				}
				fast, ok := agree(t, ts.name, c, doc)
				if !ok {
					return
				}
				counts[fast]++
				if c.Full(doc) == nil {
					validSeen++
				}
			}
			t.Logf("fast verdicts %v; %d documents valid", counts, validSeen)
			if validSeen > 0 && counts["valid"] == 0 {
				t.Errorf("the fast path never accepted any of %d valid documents", validSeen)
			}
		})
	}
}

// TestFastPathExamples: every Takhtabush example call takes the fast path.
func TestFastPathExamples(t *testing.T) {
	for name, ex := range contracts.Examples() {
		d, _ := contracts.Tool(name)
		c, err := mcpcore.CompileForTest(d.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Fast(ex.Args); got != "valid" {
			t.Errorf("%s: fast verdict %s on %s", name, got, ex.Args)
		}
	}
}

// TestFastPathCases pins verdicts on hand-picked edge cases.
func TestFastPathCases(t *testing.T) {
	cs := func(s string) *mcpcore.CompiledSchema {
		c, err := mcpcore.CompileForTest(json.RawMessage(s))
		if err != nil || !c.HasFast() {
			t.Fatalf("%s: %v", s, err)
		}
		return c
	}
	intSch := cs(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10}},"required":["n"],"additionalProperties":false}`)
	numSch := cs(`{"type":"object","properties":{"x":{"type":"number","minimum":0.7,"maximum":0.99}}}`)
	strSch := cs(`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3,"enum":["ab","aé","abc","€€"]}}}`)
	tests := []struct {
		c    *mcpcore.CompiledSchema
		doc  string
		want string
	}{
		{intSch, `{"n":1}`, "valid"},
		{intSch, `{"n":10}`, "valid"},
		{intSch, `{"n":11}`, "invalid"},
		{intSch, `{"n":0}`, "invalid"},
		{intSch, `{"n":-0}`, "invalid"},
		{intSch, `{"n":1.0}`, "valid"},
		{intSch, `{"n":1.5}`, "invalid"},
		{intSch, `{"n":1e0}`, "unknown"},
		{intSch, `{"n":"1"}`, "invalid"},
		{intSch, `{}`, "invalid"},
		{intSch, `{"n":1,"m":2}`, "invalid"},
		{intSch, `{"n":0,"n":2}`, "unknown"},
		{intSch, `{"n":2,"n":3}`, "valid"},
		{intSch, `{"\u006e":2}`, "unknown"},
		{numSch, `{"x":0.99}`, "valid"},
		{numSch, `{"x":0.990000000000000000001}`, "invalid"},
		{numSch, `{"x":0.69999999999999999999}`, "invalid"},
		{numSch, `{"x":0.7}`, "valid"},
		{numSch, `{"x":0.70}`, "valid"},
		{numSch, `{"x":7e-1}`, "unknown"},
		{strSch, `{"s":"ab"}`, "valid"},
		{strSch, `{"s":"aé"}`, "valid"},
		{strSch, `{"s":"a\u00e9"}`, "valid"},
		{strSch, `{"s":"€€"}`, "valid"},
		{strSch, `{"s":"a"}`, "invalid"},
		{strSch, `{"s":"abcd"}`, "invalid"},
		{strSch, `{"s":"abd"}`, "invalid"},
	}
	for _, tc := range tests {
		if got := tc.c.Fast([]byte(tc.doc)); got != tc.want {
			t.Errorf("%s: fast %s, want %s", tc.doc, got, tc.want)
		}
		agree(t, tc.doc, tc.c, []byte(tc.doc))
	}
}

// FuzzFastPath compares the two validators on arbitrary documents for the
// keyword schemas and the Takhtabush tool schemas.
func FuzzFastPath(f *testing.F) {
	var schemas []*mcpcore.CompiledSchema
	var names []string
	for _, ts := range allTestSchemas(nil) {
		c, err := mcpcore.CompileForTest(ts.raw)
		if err == nil && c.HasFast() {
			schemas = append(schemas, c)
			names = append(names, ts.name)
		}
	}
	for _, seed := range []string{
		`{}`, `{"n":1}`, `{"n":1.0,"n":"x"}`, `{"deckId":"d1","cards":[{"front":"Q","back":"A","tags":["t"]}]}`,
		`{"sessionId":"s","deckId":"d"}`, `{"x":0.99000001}`, `{"a":null,"b":2,"c":-1}`, `{"list":[{"k":"a"},{"k":"c"}]}`,
		`{"q":"\ud83d\ude00\ud83d"}`, `{"days":365,"minutesPerDay":1440.0}`, `{"rating":"go\u006fd","sessionId":"s","cardId":"c"}`,
	} {
		for i := range schemas {
			if i%5 == 0 {
				f.Add(uint8(i), []byte(seed))
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		doc = bytes.TrimSpace(doc)
		i := int(which) % len(schemas)
		agree(t, names[i], schemas[i], doc)
	})
}

// docGen writes random JSON documents shaped by a schema: mostly near it,
// with boundary values and, when mutate is set, deliberate faults.
type docGen struct {
	r      *rand.Rand
	mutate bool
}

func (g *docGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *docGen) ws() string {
	if g.chance(0.1) {
		return []string{" ", "\n", "\t ", "\r\n"}[g.r.IntN(4)]
	}
	return ""
}

func (g *docGen) value(sch any, depth int) string {
	m, ok := sch.(map[string]any)
	if !ok || depth > 6 || g.mutate && g.chance(0.03) {
		return g.anyValue(depth)
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		if list, ok := m[key].([]any); ok && g.chance(0.3) {
			if b, ok := list[g.r.IntN(len(list))].(map[string]any); ok && b["type"] != nil {
				return g.value(b, depth)
			}
		}
	}
	if e, ok := m["enum"].([]any); ok {
		return g.enumValue(e)
	}
	if c, ok := m["const"]; ok {
		return g.enumValue([]any{c})
	}
	typ := g.pickType(m)
	switch typ {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.str(m)
	case "integer", "number":
		return g.number(m, typ == "integer")
	case "boolean":
		return []string{"true", "false"}[g.r.IntN(2)]
	case "null":
		return "null"
	}
	return g.anyValue(depth)
}

func (g *docGen) pickType(m map[string]any) string {
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			types = append(types, e.(string))
		}
	}
	if len(types) == 0 || g.mutate && g.chance(0.05) {
		if _, ok := m["properties"]; ok && !g.chance(0.2) {
			return "object"
		}
		return []string{"object", "array", "string", "integer", "number", "boolean", "null"}[g.r.IntN(7)]
	}
	return types[g.r.IntN(len(types))]
}

func (g *docGen) anyValue(depth int) string {
	switch g.r.IntN(8) {
	case 0:
		return `"` + g.chars(g.r.IntN(4)) + `"`
	case 1:
		return g.numberLiteral(json.Number(strconv.Itoa(g.r.IntN(10))), g.chance(0.5))
	case 2:
		return "true"
	case 3:
		return "null"
	case 4:
		if depth < 4 {
			return "[" + g.anyValue(depth+1) + "]"
		}
		return "[]"
	case 5:
		if depth < 4 {
			return `{"k":` + g.anyValue(depth+1) + "}"
		}
		return "{}"
	case 6:
		return "-1.5"
	}
	return `""`
}

func (g *docGen) enumValue(vals []any) string {
	v := vals[g.r.IntN(len(vals))]
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch {
	case g.mutate && g.chance(0.2):
		return quote(s + "x")
	case g.mutate && g.chance(0.1):
		return quote(strings.ToUpper(s))
	case g.chance(0.2) && s != "":
		return `"` + fmt.Sprintf(`\u%04x`, s[0]) + escapeBody(s[1:]) + `"` // same string, escaped
	}
	return quote(s)
}

func (g *docGen) object(m map[string]any, depth int) string {
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	var names []string
	for k := range props {
		names = append(names, k)
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		if list, ok := m[key].([]any); ok {
			for _, b := range list {
				if bm, ok := b.(map[string]any); ok {
					if req, ok := bm["required"].([]any); ok {
						for _, r := range req {
							names = append(names, r.(string))
						}
					}
					if p, ok := bm["properties"].(map[string]any); ok {
						for k := range p {
							names = append(names, k)
						}
					}
				}
			}
		}
	}
	for k := range required {
		names = append(names, k)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var members []string
	member := func(k string, v string) {
		key := quote(k)
		if g.chance(0.05) && k != "" {
			key = `"` + fmt.Sprintf(`\u%04x`, k[0]) + escapeBody(k[1:]) + `"`
		}
		members = append(members, g.ws()+key+g.ws()+":"+g.ws()+v+g.ws())
	}
	for _, k := range names {
		include := required[k] || g.chance(0.5)
		if g.mutate && g.chance(0.1) {
			include = !include
		}
		if !include {
			continue
		}
		sub := props[k]
		if sub == nil {
			sub = map[string]any{}
		}
		member(k, g.value(sub, depth+1))
		if g.chance(0.04) {
			member(k, g.value(sub, depth+1)) // duplicate key
		}
	}
	if g.mutate && g.chance(0.1) || props == nil && g.chance(0.3) {
		extra := map[string]any{}
		if a, ok := m["additionalProperties"].(map[string]any); ok {
			extra = a
		}
		member([]string{"extra", "zz", ""}[g.r.IntN(3)], g.value(extra, depth+1))
	}
	return "{" + strings.Join(members, ",") + "}"
}

func (g *docGen) array(m map[string]any, depth int) string {
	lo, hi := 0, 4
	if v, ok := m["minItems"].(json.Number); ok {
		n, _ := v.Int64()
		lo = int(n)
	}
	if v, ok := m["maxItems"].(json.Number); ok {
		n, _ := v.Int64()
		hi = int(n)
	}
	n := g.around(lo, hi, 5)
	items := m["items"]
	var elems []string
	for i := range n {
		if i >= 8 { // long arrays repeat their last element to stay cheap
			elems = append(elems, elems[i-1])
			continue
		}
		elems = append(elems, g.ws()+g.value(items, depth+1)+g.ws())
	}
	return "[" + strings.Join(elems, ",") + "]"
}

// around picks a count near lo or hi (±1), or up to spread above lo.
func (g *docGen) around(lo, hi, spread int) int {
	var n int
	pick := g.r.IntN(6)
	if hi > 64 && (pick == 3 || pick == 4) && g.chance(min(0.97, 0.75+float64(hi)/20000)) {
		pick = 5 // big upper bounds are costly to reach; test them less often
	}
	switch pick {
	case 0:
		n = lo - 1
	case 1:
		n = lo
	case 2:
		n = lo + 1
	case 3:
		n = hi
	case 4:
		n = hi + 1
	default:
		n = lo + g.r.IntN(spread+1)
	}
	if !g.mutate {
		n = max(lo, min(n, hi))
	}
	return max(n, 0)
}

func (g *docGen) str(m map[string]any) string {
	lo, hi := 0, 8
	if v, ok := m["minLength"].(json.Number); ok {
		n, _ := v.Int64()
		lo = int(n)
	}
	if v, ok := m["maxLength"].(json.Number); ok {
		n, _ := v.Int64()
		hi = int(n)
	}
	n := g.around(lo, hi, 6)
	if n > 64 { // long strings repeat a short random stretch
		return `"` + strings.Repeat("ab", (n-8)/2) + g.chars(8+(n-8)%2) + `"`
	}
	return `"` + g.chars(n) + `"`
}

// chars writes n characters of a JSON string body: ASCII, multi-byte
// UTF-8, escapes (one character each), surrogate pairs, and now and then
// a raw invalid byte.
func (g *docGen) chars(n int) string {
	var sb strings.Builder
	for range n {
		switch g.r.IntN(10) {
		case 0:
			sb.WriteString("é")
		case 1:
			sb.WriteString("م")
		case 2:
			sb.WriteString([]string{`\n`, `\"`, `\\`, `\u0041`, `\/`}[g.r.IntN(5)])
		case 3:
			sb.WriteString(`\ud83d\ude00`)
		case 4:
			if g.chance(0.1) {
				sb.WriteByte(0xff)
			} else {
				sb.WriteString("😀")
			}
		default:
			sb.WriteByte(byte('a' + g.r.IntN(26)))
		}
	}
	return sb.String()
}

func (g *docGen) number(m map[string]any, integer bool) string {
	var anchors []json.Number
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if v, ok := m[k].(json.Number); ok {
			anchors = append(anchors, v)
		}
	}
	if len(anchors) == 0 {
		anchors = []json.Number{"0", "7"}
	}
	a := anchors[g.r.IntN(len(anchors))]
	return g.numberLiteral(a, integer)
}

// numberLiteral writes a number at or next to anchor, in assorted forms.
func (g *docGen) numberLiteral(anchor json.Number, integer bool) string {
	f, _ := anchor.Float64()
	s := string(anchor)
	switch g.r.IntN(12) {
	case 0:
		return s
	case 1:
		return strconv.FormatFloat(f+1, 'f', -1, 64)
	case 2:
		return strconv.FormatFloat(f-1, 'f', -1, 64)
	case 3:
		if strings.Contains(s, ".") {
			return s + "0000000000000000000001"
		}
		return s + ".0000000000000000000001"
	case 4:
		return "-" + strings.TrimPrefix(s, "-")
	case 5:
		if strings.Contains(s, ".") {
			return s + "0"
		}
		return s + ".0"
	case 6:
		return strconv.FormatFloat(f, 'e', -1, 64)
	case 7:
		return "-0"
	case 8:
		return "123456789012345678901234567890"
	case 9:
		if !integer || g.mutate {
			return strconv.FormatFloat(f+0.5, 'f', -1, 64)
		}
	case 10:
		return strconv.FormatFloat(f-0.0000001, 'f', -1, 64)
	}
	return strconv.Itoa(int(f))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// escapeBody returns s as the inside of a JSON string literal.
func escapeBody(s string) string {
	q := quote(s)
	return q[1 : len(q)-1]
}
