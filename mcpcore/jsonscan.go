package mcpcore

import (
	"encoding/json"
	"unicode/utf8"
)

// This file holds the allocation-free JSON helpers the hot path uses: a
// member iterator over an already-validated object (so the envelope and the
// params are decoded once, as sub-slices of the request body) and an
// appender that writes JSON strings into a byte slice.

// skipWS returns the index of the first non-whitespace byte at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i].
// b must be valid JSON (checked with validJSON beforehand).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1
		}
		i++
	}
	return i
}

// objIter walks the members of a JSON object without allocating.
type objIter struct {
	b []byte
	i int
}

// newObjIter returns an iterator over b, which must be a valid JSON object
// (leading whitespace allowed). ok is false when b is not an object.
func newObjIter(b []byte) (it objIter, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return objIter{}, false
	}
	return objIter{b: b, i: i + 1}, true
}

// next returns the next member: key is the raw string content (without
// quotes, escapes not decoded) and val the raw value.
func (it *objIter) next() (key, val []byte, ok bool) {
	b := it.b
	i := skipWS(b, it.i)
	if i < len(b) && b[i] == ',' {
		i = skipWS(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return nil, nil, false
	}
	end := skipString(b, i)
	key = b[i+1 : end-1]
	i = skipWS(b, end)
	i = skipWS(b, i+1) // past ':'
	vend := skipValue(b, i)
	val = b[i:vend]
	it.i = vend
	return key, val, true
}

// keyIs reports whether the raw key equals name, decoding escapes if needed.
func keyIs(raw []byte, name string) bool {
	if string(raw) == name {
		return true
	}
	for _, c := range raw {
		if c == '\\' {
			return unquoteRaw(raw) == name
		}
	}
	return false
}

// unquoteRaw decodes raw string content (between the quotes).
func unquoteRaw(raw []byte) string {
	for _, c := range raw {
		if c == '\\' {
			q := make([]byte, 0, len(raw)+2)
			q = append(append(append(q, '"'), raw...), '"')
			var s string
			if json.Unmarshal(q, &s) != nil {
				return ""
			}
			return s
		}
	}
	return string(raw)
}

// jsonString returns the decoded value of a JSON string token, and ok=false
// when v is not a string.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	return unquoteRaw(v[1 : len(v)-1]), true
}

// kindOf classifies a raw JSON value by its first byte.
func kindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; c {
	case '"', '{', '[', 't', 'f', 'n':
		return c
	default:
		return '0'
	}
}

// isNull reports whether v is absent or the JSON literal null.
func isNull(v []byte) bool { return len(v) == 0 || v[0] == 'n' }

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string literal.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSON appends the JSON encoding of v. json.RawMessage values are
// appended verbatim (they must be valid JSON); anything else goes through
// encoding/json.
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case json.RawMessage:
		if len(t) == 0 {
			return append(dst, "null"...), nil
		}
		return append(dst, t...), nil
	case string:
		return appendString(dst, t), nil
	case bool:
		if t {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
