package contracts_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	c "github.com/takhtabush/takhtabush/contracts"
)

func validate(t *testing.T, s *jsonschema.Schema, what string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not validate: %v\n%s", what, err, b)
	}
}

func TestExamplesValidate(t *testing.T) {
	for _, tool := range c.Catalog() {
		ex, ok := c.Examples()[tool.Name]
		if !ok {
			t.Errorf("%s: no example", tool.Name)
			continue
		}
		in := compile(t, tool.Name+".in", tool.InputSchema)
		out := compile(t, tool.Name+".out", tool.ResultSchema)
		validate(t, in, tool.Name+" example arguments", ex.Args)
		validate(t, out, tool.Name+" example result", ex.Result)

		// The arguments decode into the record with no unknown field, and
		// re-encode to the same JSON: schema and record agree.
		rec := reflect.New(reflect.TypeOf(ex.Record))
		dec := json.NewDecoder(bytes.NewReader(ex.Args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(rec.Interface()); err != nil {
			t.Errorf("%s: example arguments do not decode into %T: %v", tool.Name, ex.Record, err)
			continue
		}
		back, _ := json.Marshal(rec.Interface())
		var a, b any
		_ = json.Unmarshal(ex.Args, &a)
		_ = json.Unmarshal(back, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: arguments lose data through %T:\n in  %s\n out %s", tool.Name, ex.Record, string(ex.Args), back)
		}
	}
}

// Every property an argument schema declares is a field of the record, so
// no argument is silently dropped.
func TestArgumentRecordsCoverSchemas(t *testing.T) {
	for _, tool := range c.Catalog() {
		ex := c.Examples()[tool.Name]
		if ex.Record == nil {
			continue
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		fields := map[string]bool{}
		rt := reflect.TypeOf(ex.Record)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "-" {
				continue // not on the wire (set by the web app, as SearchCardsArgs.Sort)
			}
			fields[name] = true
		}
		for p := range s.Properties {
			// The confirmation id is the surface's: it never reaches a room.
			if !fields[p] && !(p == c.ConfirmArg && tool.Confirm != "") {
				t.Errorf("%s: schema property %q has no field in %T", tool.Name, p, ex.Record)
			}
		}
		for f := range fields {
			if _, ok := s.Properties[f]; !ok {
				t.Errorf("%s: field %q of %T is not in the schema", tool.Name, f, ex.Record)
			}
		}
	}
}

// Invalid arguments are rejected with every violation reported.
func TestInvalidArgumentsRejected(t *testing.T) {
	tool, _ := c.Tool(c.ToolAddCards)
	s := compile(t, "add", tool.InputSchema)
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"deckId":"","cards":[{"front":"Q"}],"extra":1}`))
	err := s.Validate(doc)
	if err == nil {
		t.Fatal("invalid add_cards arguments validated")
	}
	for _, want := range []string{"/deckId", "/cards/0", "extra"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error does not mention %s: %v", want, err)
		}
	}
}
