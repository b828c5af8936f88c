package surface

import (
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// integralForms rewrites every number literal of the JSON value raw that
// has a fraction or an exponent but an integer value (10.0, 1e1, 2.5e1)
// into plain integer form, as JSON Schema counts them integers; literals
// beyond int64 are left as they are. The engine has bounded the literals
// (length and exponent), so the arithmetic here is small. It returns raw
// itself when there is nothing to rewrite.
func integralForms(raw []byte) []byte {
	var out []byte
	last := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			continue
		}
		j := i + 1
		plain := true
		for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
			if raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' {
				plain = false
			}
			j++
		}
		if !plain {
			if n, ok := integerValue(raw[i:j]); ok {
				out = append(out, raw[last:i]...)
				out = strconv.AppendInt(out, n, 10)
				last = j
			}
		}
		i = j - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// integerValue returns the value of the number literal lit when it is an
// integer that fits in int64.
func integerValue(lit []byte) (int64, bool) {
	if len(lit) > 64 {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(lit))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// decodeArgs decodes validated arguments into a tool's record. Integers
// written with a fraction or exponent are accepted; a failure is described
// in terms of the arguments (JSON names and kinds), never Go types.
func decodeArgs(raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		if err = json.Unmarshal(integralForms(raw), v); err == nil {
			return nil
		}
	}
	return argsError(err)
}

// argsError describes a decoding failure without Go type names.
func argsError(err error) error {
	if contracts.IsKind(err, contracts.KindInvalid) {
		return err // a record's own decoder said what is wrong (contracts.DateOrTime)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return invalidf("the arguments must be an object")
		}
		if strings.HasPrefix(te.Value, "number") {
			return invalidf("argument %q is out of range or not an integer", te.Field)
		}
		return invalidf("argument %q has the wrong type (got %s)", te.Field, jsonKind(te.Value))
	}
	return invalidf("the arguments do not match the tool's input schema")
}

func invalidf(format string, args ...any) error {
	return contracts.Errorf(contracts.KindInvalid, format, args...)
}

// jsonKind names the JSON kind of an UnmarshalTypeError value.
func jsonKind(v string) string {
	for _, k := range []string{"string", "number", "bool", "array", "object"} {
		if strings.HasPrefix(v, k) {
			if k == "bool" {
				return "a boolean"
			}
			if k == "array" || k == "object" {
				return "an " + k
			}
			return "a " + k
		}
	}
	return "a value of another kind"
}
