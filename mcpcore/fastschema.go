package mcpcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// The fast path of argument validation. Most tool schemas use a small,
// plain subset of JSON Schema: typed properties, required, closed objects,
// string lengths and enums, numeric bounds, arrays with items and counts,
// and oneOf/anyOf/allOf/not over such schemas. compileFast turns a schema
// of that subset into a tree of fastNodes that checks the raw argument
// bytes without decoding them (fastcheck.go). It answers valid, invalid or
// unknown, and is exact whenever it answers valid or invalid; the full
// validator (schema.go) still produces every violation message, so the fast
// path only lets valid calls skip it. A schema using any keyword outside
// the subset gets no fast path at all.

// kindSet is a set of JSON Schema types, one bit each.
type kindSet uint8

const (
	kindObject kindSet = 1 << iota
	kindArray
	kindString
	kindNumber
	kindInteger
	kindBoolean
	kindNull
)

var kindNames = map[string]kindSet{
	"object": kindObject, "array": kindArray, "string": kindString, "number": kindNumber,
	"integer": kindInteger, "boolean": kindBoolean, "null": kindNull,
}

// fastNode is one compiled schema of the subset. Keywords apply only to
// values of their type, as in JSON Schema.
type fastNode struct {
	constant int8    // +1: the schema true; -1: the schema false; 0: check the keywords
	types    kindSet // 0: any type

	enum    []string // strings only; nil when absent
	hasEnum bool

	minLen, maxLen int // code points; -1 when absent

	min, max, exMin, exMax decimal // bounds; set reports presence

	props        []fastProp // properties, then required names not in properties
	requiredMask uint64     // bits of props that must be present
	additional   int8       // 0: allowed; -1: additionalProperties false; +1: checked by addlNode
	addlNode     *fastNode

	items              *fastNode
	minItems, maxItems int // -1 when absent

	allOf, anyOf, oneOf []*fastNode
	not                 *fastNode
}

// fastProp is a property name the object keywords know about.
type fastProp struct {
	name     string
	node     *fastNode // nil: listed in required only
	declared bool      // in properties (so not additional)
}

// errUnsupported reports a schema outside the fast subset.
var errUnsupported = errors.New("schema outside the fast-path subset")

// annotations are keywords that never affect validity (format is an
// annotation in 2020-12 unless the format-assertion vocabulary is on, which
// compileSchema never enables).
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "format": true,
}

// compileFast compiles raw into a fast checker, or returns nil when raw
// uses anything outside the subset (the full validator then does all the
// work). raw must already have compiled with compileSchema.
func compileFast(raw []byte) *fastNode {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"]; ok {
			if s != "https://json-schema.org/draft/2020-12/schema" && s != "https://json-schema.org/draft/2020-12/schema#" {
				return nil
			}
			delete(obj, "$schema")
		}
	}
	n, err := fastFrom(doc)
	if err != nil {
		return nil
	}
	return n
}

func fastFrom(doc any) (*fastNode, error) {
	n := &fastNode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	switch d := doc.(type) {
	case bool:
		n.constant = -1
		if d {
			n.constant = 1
		}
		return n, nil
	case map[string]any:
		_, hasEnum := d["enum"]
		_, hasConst := d["const"]
		if hasEnum && hasConst {
			return nil, errUnsupported
		}
		var required []string
		for k, v := range d {
			if annotations[k] {
				continue
			}
			var err error
			switch k {
			case "type":
				n.types, err = fastTypes(v)
			case "enum":
				n.enum, err = stringList(v)
				n.hasEnum = true
			case "const":
				s, ok := v.(string)
				if !ok {
					return nil, errUnsupported
				}
				n.enum, n.hasEnum = []string{s}, true
			case "minLength":
				n.minLen, err = count(v)
			case "maxLength":
				n.maxLen, err = count(v)
			case "minItems":
				n.minItems, err = count(v)
			case "maxItems":
				n.maxItems, err = count(v)
			case "minimum":
				n.min, err = bound(v)
			case "maximum":
				n.max, err = bound(v)
			case "exclusiveMinimum":
				n.exMin, err = bound(v)
			case "exclusiveMaximum":
				n.exMax, err = bound(v)
			case "properties":
				err = n.addProperties(v)
			case "required":
				required, err = stringList(v)
			case "additionalProperties":
				switch a := v.(type) {
				case bool:
					if !a {
						n.additional = -1
					}
				default:
					n.additional = 1
					n.addlNode, err = fastFrom(a)
				}
			case "items":
				n.items, err = fastFrom(v)
			case "allOf":
				n.allOf, err = fastList(v)
			case "anyOf":
				n.anyOf, err = fastList(v)
			case "oneOf":
				n.oneOf, err = fastList(v)
			case "not":
				n.not, err = fastFrom(v)
			default:
				return nil, errUnsupported
			}
			if err != nil {
				return nil, err
			}
		}
		return n, n.addRequired(required)
	}
	return nil, errUnsupported
}

func (n *fastNode) addProperties(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errUnsupported
	}
	for name, sub := range m {
		node, err := fastFrom(sub)
		if err != nil {
			return err
		}
		n.props = append(n.props, fastProp{name: name, node: node, declared: true})
	}
	if len(n.props) > 64 {
		return errUnsupported
	}
	return nil
}

func (n *fastNode) addRequired(names []string) error {
	for _, name := range names {
		i := n.propIndex(name)
		if i < 0 {
			n.props = append(n.props, fastProp{name: name})
			i = len(n.props) - 1
		}
		if i >= 64 {
			return errUnsupported
		}
		n.requiredMask |= 1 << i
	}
	return nil
}

// propIndex returns the index of the named property in n.props, or -1.
func (n *fastNode) propIndex(name string) int {
	for i := range n.props {
		if n.props[i].name == name {
			return i
		}
	}
	return -1
}

func fastTypes(v any) (kindSet, error) {
	switch t := v.(type) {
	case string:
		k, ok := kindNames[t]
		if !ok {
			return 0, errUnsupported
		}
		return k, nil
	case []any:
		var set kindSet
		for _, e := range t {
			s, ok := e.(string)
			if !ok || kindNames[s] == 0 {
				return 0, errUnsupported
			}
			set |= kindNames[s]
		}
		if set == 0 {
			return 0, errUnsupported
		}
		return set, nil
	}
	return 0, errUnsupported
}

func fastList(v any) ([]*fastNode, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, errUnsupported
	}
	out := make([]*fastNode, len(list))
	for i, e := range list {
		n, err := fastFrom(e)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errUnsupported
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, errUnsupported
		}
		out[i] = s
	}
	return out, nil
}

// count parses a non-negative integer keyword value.
func count(v any) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, errUnsupported
	}
	n, err := strconv.Atoi(string(num))
	if err != nil || n < 0 {
		return 0, errUnsupported
	}
	return n, nil
}

// bound parses a numeric bound written without an exponent.
func bound(v any) (decimal, error) {
	num, ok := v.(json.Number)
	if !ok {
		return decimal{}, errUnsupported
	}
	d, ok := parseDecimal([]byte(num))
	if !ok {
		return decimal{}, errUnsupported
	}
	return d, nil
}
