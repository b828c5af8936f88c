package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// maxBodyBytes bounds a request body: room for a full pasted import
// (contracts.MaxImportBytes) or a bulk request of contracts.MaxBulkItems
// cards, JSON escaping included.
const maxBodyBytes = 8 << 20

// invalid returns an invalid-kind error: what a decoder says about a
// request it cannot read.
func invalid(format string, args ...any) error {
	return contracts.Errorf(contracts.KindInvalid, format, args...)
}

// decodeBody reads the JSON body of r into v. It accepts an empty body
// (leaving v as it is) and otherwise requires Content-Type
// application/json, one JSON object, no unknown fields, no trailing data
// and at most maxBodyBytes. Routes with a body take no query parameters.
func decodeBody(r *http.Request, v any) error {
	if err := readQuery(r).err; err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig): // the outer middleware's, lower bound
		return invalid("the request body is larger than %d bytes", tooBig.Limit)
	case err != nil:
		return invalid("could not read the request body: %v", err)
	}
	if len(data) > maxBodyBytes {
		return invalid("the request body is larger than %d bytes", maxBodyBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return invalid("the request body must be JSON sent with Content-Type: application/json")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalid("the request body must hold a single JSON object, with nothing after it")
	}
	return nil
}

// jsonError turns a decoding error into a message that says what is wrong.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return invalid("the request body is not valid JSON (at byte %d): %v", syntax.Offset, syntax)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("the request body is not valid JSON: it ends too early")
	case errors.As(err, &typ) && typ.Field == "":
		return invalid("the request body must be a JSON object, not %s", typ.Value)
	case errors.As(err, &typ):
		return invalid("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalid("unknown field %s", field)
	}
	return invalid("the request body could not be read: %v", err)
}

// jsonKind names the JSON type that decodes into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// bindID puts the id from the path into a body field. A body that names a
// different id is refused rather than silently overridden.
func bindID(field *string, name, pathID string) error {
	if *field != "" && *field != pathID {
		return invalid("%s %q in the body differs from %q in the path", name, *field, pathID)
	}
	*field = pathID
	return nil
}

// idRequest is the request of a route that takes only the {id} in its path.
type idRequest struct{ id string }

// decodeIDRequest decodes the {id} of the path; it takes no query parameters.
func decodeIDRequest(_ context.Context, r *http.Request) (any, error) {
	return idRequest{id: r.PathValue("id")}, readQuery(r).err
}

// query reads URL query parameters strictly. The first problem sticks in
// err: a malformed query, an unknown or repeated parameter, or a value that
// does not parse. Absent parameters read as zero values.
type query struct {
	values url.Values
	err    error
}

// readQuery parses the query of r, allowing the names given.
func readQuery(r *http.Request, allowed ...string) *query {
	values, err := url.ParseQuery(r.URL.RawQuery)
	q := &query{values: values}
	if err != nil {
		q.err = invalid("the query string is malformed: %v", err)
		return q
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(allowed, name) {
			q.fail(name, "is not a parameter of this route (allowed: %s)", allowedList(allowed))
		}
	}
	return q
}

func allowedList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (q *query) fail(name, format string, args ...any) {
	if q.err == nil {
		q.err = invalid("query parameter %q %s", name, fmt.Sprintf(format, args...))
	}
}

// str returns the single value of name, or "".
func (q *query) str(name string) string {
	vs := q.values[name]
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	q.fail(name, "is given %d times; give it once", len(vs))
	return ""
}

// all returns every value of a repeatable parameter.
func (q *query) all(name string) []string { return q.values[name] }

// integer returns the value of name as an int, or 0 when absent.
func (q *query) integer(name string) int {
	s := q.str(name)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.fail(name, "must be an integer, not %q", s)
	}
	return n
}

// number returns the value of name as a float64, or 0 when absent.
func (q *query) number(name string) float64 {
	s := q.str(name)
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		q.fail(name, "must be a number, not %q", s)
	}
	return f
}

// timestamp returns the value of name as an RFC 3339 time, or nil when absent.
func (q *query) dateOrTime(name string) *contracts.DateOrTime {
	s := q.str(name)
	if s == "" {
		return nil
	}
	w, err := contracts.ParseDateOrTime(s)
	if err != nil {
		q.fail(name, "%s", contracts.MessageOf(err))
		return nil
	}
	return &w
}
