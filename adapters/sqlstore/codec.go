package sqlstore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ms converts a time to unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMs converts unix milliseconds to a UTC time.
func fromMs(v int64) time.Time { return time.UnixMilli(v).UTC() }

// msPtr converts an optional time to a nullable column value.
func msPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

// fromNullMs converts a nullable column value to an optional time.
func fromNullMs(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMs(v.Int64)
	return &t
}

// jsonText encodes v as JSON text without HTML escaping.
func jsonText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// appendJSONString appends v as a JSON string: quote, backslash and
// control characters escaped, the rest as is (encoding/json's HTML
// escapes are not needed to read it back). Invalid UTF-8 is encoded as
// encoding/json does (U+FFFD for each bad byte).
func appendJSONString(b []byte, v string) []byte {
	if !utf8.ValidString(v) {
		q, _ := json.Marshal(v) // a string always encodes
		return append(b, q...)
	}
	return appendJSONEscaped(b, v)
}

// appendJSONBytes is appendJSONString of string(v), without copying v.
func appendJSONBytes(b []byte, v []byte) []byte {
	if !utf8.Valid(v) {
		q, _ := json.Marshal(string(v))
		return append(b, q...)
	}
	return appendJSONEscaped(b, v)
}

// appendJSONEscaped appends valid UTF-8 text v as a JSON string.
func appendJSONEscaped[T string | []byte](b []byte, v T) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, v[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, v[start:]...)
	return append(b, '"')
}

// stringsJSON encodes a string list; nil encodes as [].
func stringsJSON(v []string) string {
	if v == nil {
		v = []string{}
	}
	s, _ := jsonText(v) // a []string always encodes
	return s
}

// parseStrings decodes a JSON string list, never returning nil.
func parseStrings(s string) ([]string, error) {
	out := []string{}
	if s == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// maxQueryWords bounds the words of a full-text query.
const maxQueryWords = 16

// queryWords splits a full-text query into words of letters, marks and
// digits; everything else separates words. It keeps at most maxQueryWords.
func queryWords(q string) []string {
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	words := fields[:0]
	for _, w := range fields {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			words = append(words, w) // not marks alone
		}
	}
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	return words
}

// args collects positional arguments and hands out their placeholders.
type args []any

// add appends an argument and returns its placeholder ($n).
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// seq appends arguments and returns their placeholders in the dialect's
// sequential form, comma-separated (for statements using only these).
func seq[T any](a *args, d Dialect, vs []T) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		*a = append(*a, v)
		b.WriteString(d.Placeholder(len(*a)))
	}
	return b.String()
}

// list appends arguments and returns their placeholders, comma-separated.
func list[T any](a *args, vs []T) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.add(v))
	}
	return b.String()
}

// chunks splits vs into slices of at most n.
func chunks[T any](vs []T, n int) [][]T {
	var out [][]T
	for len(vs) > n {
		out = append(out, vs[:n])
		vs = vs[n:]
	}
	if len(vs) > 0 {
		out = append(out, vs)
	}
	return out
}

// inChunk bounds the ids of one IN list.
const inChunk = 500

// dedupe returns vs without repeats, keeping the first occurrence.
func dedupe(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// itoa formats an integer.
func itoa[T int | int64](v T) string { return strconv.FormatInt(int64(v), 10) }
