package mcpcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/textproto"
	"strings"
)

// headerParam is a tool parameter mirrored into an Mcp-Param-{Name}
// header (SEP-2243, the x-mcp-header schema extension).
type headerParam struct {
	header string   // canonical header key, "Mcp-Param-Region"
	path   []string // chain of properties keys from the schema root
	typ    string   // "string", "integer" or "boolean"
}

// headerParams finds the x-mcp-header annotations of an input schema and
// checks them: a non-empty HTTP token, unique ignoring case, on a
// string, integer or boolean property reachable from the root through
// properties keys only. An annotation anywhere else makes the tool invalid.
func headerParams(schema json.RawMessage) ([]headerParam, error) {
	if !bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		return nil, nil
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, err
	}
	var out []headerParam
	seen := map[string]bool{}
	var walk func(node map[string]any, path []string) error
	walk = func(node map[string]any, path []string) error {
		props, _ := node["properties"].(map[string]any)
		for name, raw := range props {
			prop, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			p := append(append([]string(nil), path...), name)
			if h, ok := prop["x-mcp-header"]; ok {
				hs, _ := h.(string)
				if !isToken(hs) {
					return fmt.Errorf("x-mcp-header %q of %s: must be a non-empty HTTP token", hs, strings.Join(p, "."))
				}
				typ, _ := prop["type"].(string)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("x-mcp-header %q of %s: the property must have type string, integer or boolean", hs, strings.Join(p, "."))
				}
				key := strings.ToLower(hs)
				if seen[key] {
					return fmt.Errorf("x-mcp-header %q: duplicate (ignoring case)", hs)
				}
				seen[key] = true
				out = append(out, headerParam{header: textproto.CanonicalMIMEHeaderKey("Mcp-Param-" + hs), path: p, typ: typ})
			}
			if err := walk(prop, p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	if n := bytes.Count(schema, []byte(`"x-mcp-header"`)); n != len(out) {
		return nil, fmt.Errorf("x-mcp-header may only annotate properties reachable from the root through properties keys")
	}
	return out, nil
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// checkParamHeaders compares the Mcp-Param-* headers of a modern HTTP
// tools/call with the arguments they mirror: a value in the body needs
// its header, a header needs its value, and the two must agree (after
// decoding the =?base64?…?= form; integers compare as numbers). Any
// failure is -32020 with HTTP 400.
func (x *exchange) checkParamHeaders(te *toolEntry, args json.RawMessage) *Error {
	h := x.tr.header
	if !x.modern || h == nil || len(te.params) == 0 {
		return nil
	}
	for i := range te.params {
		p := &te.params[i]
		body, present := argAt(args, p.path)
		vals, hasHeader := h[p.header]
		switch {
		case !present && !hasHeader:
			continue
		case !present:
			return headerMismatch(p.header + " header is set but its parameter is absent from the arguments")
		case !hasHeader:
			return headerMismatch("missing " + p.header + " header for parameter " + strings.Join(p.path, "."))
		case len(vals) != 1:
			return headerMismatch(p.header + " header appears more than once")
		}
		if !validHeaderChars(vals[0]) {
			return headerMismatch(p.header + " header contains characters not allowed in a header value")
		}
		dec, ok := decodeHeaderValue(vals[0])
		if !ok {
			return headerMismatch(p.header + " header is not valid =?base64?…?= encoding")
		}
		if !paramMatches(p.typ, dec, body) {
			return headerMismatch(p.header + " header does not match parameter " + strings.Join(p.path, "."))
		}
	}
	return nil
}

func headerMismatch(msg string) *Error {
	return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + msg, status: http.StatusBadRequest}
}

// validHeaderChars accepts visible ASCII, space and tab (RFC 9110 field values).
func validHeaderChars(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// argAt returns the value at path in the arguments object; a null value
// counts as absent.
func argAt(args json.RawMessage, path []string) (json.RawMessage, bool) {
	cur := []byte(args)
	for _, key := range path {
		it, ok := newObjIter(cur)
		if !ok {
			return nil, false
		}
		var next []byte
		for {
			k, v, ok := it.next()
			if !ok {
				break
			}
			if keyIs(k, key) {
				next = v
			}
		}
		if next == nil {
			return nil, false
		}
		cur = next
	}
	if isNull(cur) {
		return nil, false
	}
	return cur, true
}

// paramMatches compares a decoded header value with the body's JSON value.
func paramMatches(typ, header string, body json.RawMessage) bool {
	switch kindOf(body) {
	case '"':
		s, ok := jsonString(body)
		return ok && s == header
	case '0':
		hv, ok1 := new(big.Rat).SetString(strings.TrimSpace(header))
		bv, ok2 := new(big.Rat).SetString(string(body))
		return ok1 && ok2 && hv.Cmp(bv) == 0
	case 't', 'f':
		return header == string(body)
	}
	return false
}
