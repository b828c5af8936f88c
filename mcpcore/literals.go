package mcpcore

import (
	"bytes"
	"strconv"
)

// Bounds on the number literals of tool arguments. The full validator
// turns numbers into exact big rationals, so a literal of a few megabytes
// (or a short one like 1e999999999) costs minutes of CPU; literals are
// checked against these bounds first, which keeps the cost of checking
// arguments linear in their size. Real arguments never come close.
const (
	// MaxNumberLiteral is the most characters a number literal may have.
	MaxNumberLiteral = 64
	// MaxNumberExponent bounds the magnitude of a literal's exponent.
	MaxNumberExponent = 400
)

// numberViolations walks the well-formed JSON value v and names every
// number literal beyond the bounds, with its JSON pointer; nil when there
// is none. It allocates only for the path of a violation.
func numberViolations(v []byte) []string {
	w := literalWalker{b: v}
	w.value(skipWS(v, 0))
	return w.out
}

type literalWalker struct {
	b    []byte
	path []string
	out  []string
}

// value walks the value at b[i] and returns the index past it.
func (w *literalWalker) value(i int) int {
	b := w.b
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '{':
		i = skipWS(b, i+1)
		for i < len(b) && b[i] != '}' {
			end := scanString(b, i)
			if end < 0 {
				return len(b)
			}
			key := unquoteRaw(b[i+1 : end-1])
			i = skipWS(b, end)
			i = skipWS(b, i+1) // ':'
			w.path = append(w.path, key)
			i = skipWS(b, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if i < len(b) && b[i] == ',' {
				i = skipWS(b, i+1)
			}
		}
		return i + 1
	case '[':
		i = skipWS(b, i+1)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			w.path = append(w.path, strconv.Itoa(n))
			i = skipWS(b, w.value(i))
			w.path = w.path[:len(w.path)-1]
			if i < len(b) && b[i] == ',' {
				i = skipWS(b, i+1)
			}
		}
		return i + 1
	case '"':
		if end := scanString(b, i); end > 0 {
			return end
		}
		return len(b)
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	}
	end := scanNumber(b, i)
	if end < 0 {
		return len(b)
	}
	if msg := checkLiteral(b[i:end]); msg != "" {
		w.out = append(w.out, pointer(w.path)+": "+msg)
	}
	return end
}

// checkLiteral returns why the number literal lit is out of bounds, or "".
func checkLiteral(lit []byte) string {
	if len(lit) > MaxNumberLiteral {
		return "number literal has " + strconv.Itoa(len(lit)) + " characters; at most " +
			strconv.Itoa(MaxNumberLiteral) + " are allowed"
	}
	e := bytes.IndexAny(lit, "eE")
	if e < 0 {
		return ""
	}
	exp := string(bytes.TrimLeft(lit[e+1:], "+-0"))
	if len(exp) > 6 {
		return "number exponent is out of range (at most ±" + strconv.Itoa(MaxNumberExponent) + ")"
	}
	if n, _ := strconv.Atoi(exp); n > MaxNumberExponent {
		return "number exponent is out of range (at most ±" + strconv.Itoa(MaxNumberExponent) + ")"
	}
	return ""
}
