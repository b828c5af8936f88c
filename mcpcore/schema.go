package mcpcore

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
)

// schema is a compiled JSON Schema used to check arguments or output.
type schema struct {
	s    *jsonschema.Schema
	fast *fastNode // nil when the schema is outside the fast subset
}

// refuseLoader rejects every non-embedded $ref target: remote references
// are never fetched.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote $ref %q is not allowed", url)
}

// compileSchema compiles raw (2020-12 unless it says otherwise) under loc.
func compileSchema(loc string, raw []byte) (*schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	return &schema{s: s, fast: compileFast(raw)}, nil
}

var printer = xmessage.NewPrinter(language.English)

// violations validates the JSON document raw and returns one line per
// failed leaf check, each with the JSON pointer of the offending value,
// sorted. It returns nil when raw is valid.
func (sc *schema) violations(raw []byte) []string {
	if sc.fast != nil && validJSON(raw) && sc.fast.check(bytes.TrimSpace(raw)) == vValid {
		return nil
	}
	return sc.fullViolations(raw)
}

// argViolations is violations for a value cut from a request body that
// already passed validJSON.
func (sc *schema) argViolations(raw []byte) []string {
	if sc.fast != nil && sc.fast.check(raw) == vValid {
		return nil
	}
	return sc.fullViolations(raw)
}

// fullViolations runs the full validator, which names every violation.
func (sc *schema) fullViolations(raw []byte) []string {
	if !validJSON(raw) {
		return []string{"arguments are not valid JSON"}
	}
	if v := numberViolations(raw); v != nil {
		return v // before any big-number arithmetic
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []string{"arguments are not valid JSON"}
	}
	err = sc.s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	collectLeaves(ve, &out)
	sort.Strings(out)
	out = dedupe(out)
	return out
}

func collectLeaves(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			sort.Strings(ap.Properties) // map order otherwise: keep messages stable
		}
		*out = append(*out, pointer(e.InstanceLocation)+": "+e.ErrorKind.LocalizedString(printer))
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// pointer renders an RFC 6901 JSON pointer ("" is the root, shown as "/").
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}
