package mcpcore

// validJSON reports whether b is exactly one well-formed JSON value with
// optional surrounding whitespace. It accepts precisely what
// encoding/json.Valid accepts (including its nesting limit and its
// tolerance of invalid UTF-8 inside strings) but runs a direct scan
// instead of the general state machine. FuzzValidJSON holds the two equal.
func validJSON(b []byte) bool {
	var st nesting
	i := 0
	for {
		// A value starts at i.
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '{':
			if !st.push(true) {
				return false
			}
			if i = skipWS(b, i+1); i < len(b) && b[i] == '}' {
				st.pop()
				i++
				break
			}
			if i = scanKey(b, i); i < 0 {
				return false
			}
			continue
		case '[':
			if !st.push(false) {
				return false
			}
			if i = skipWS(b, i+1); i < len(b) && b[i] == ']' {
				st.pop()
				i++
				break
			}
			continue
		case '"':
			i = scanString(b, i)
		case 't':
			i = scanLiteral(b, i, "true")
		case 'f':
			i = scanLiteral(b, i, "false")
		case 'n':
			i = scanLiteral(b, i, "null")
		default:
			i = scanNumber(b, i)
		}
		if i < 0 {
			return false
		}
		// After a value: close containers until one continues with ','.
		for {
			i = skipWS(b, i)
			if st.depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			inObject := st.top()
			c := b[i]
			if c == ',' {
				if inObject {
					if i = scanKey(b, skipWS(b, i+1)); i < 0 {
						return false
					}
				} else {
					i++
				}
				break
			}
			if inObject && c == '}' || !inObject && c == ']' {
				st.pop()
				i++
				continue
			}
			return false
		}
	}
}

// maxNesting is encoding/json's limit on nested objects and arrays.
const maxNesting = 10000

// nesting records whether each open container is an object, one bit per
// level; only documents nested deeper than 64 levels allocate.
type nesting struct {
	depth int
	low   uint64   // levels 1-64
	high  []uint64 // levels 65 and up
}

func (n *nesting) push(object bool) bool {
	if n.depth == maxNesting {
		return false
	}
	lvl := n.depth
	n.depth++
	if lvl < 64 {
		n.low = n.low&^(1<<lvl) | bit(object)<<lvl
		return true
	}
	w, o := (lvl-64)/64, uint((lvl-64)%64)
	if w == len(n.high) {
		n.high = append(n.high, 0)
	}
	n.high[w] = n.high[w]&^(1<<o) | bit(object)<<o
	return true
}

func (n *nesting) pop() { n.depth-- }

// top reports whether the innermost open container is an object.
func (n *nesting) top() bool {
	lvl := n.depth - 1
	if lvl < 64 {
		return n.low>>lvl&1 == 1
	}
	return n.high[(lvl-64)/64]>>uint((lvl-64)%64)&1 == 1
}

func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// scanKey scans `"key" :` at b[i] and returns the index past the colon, or -1.
func scanKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = scanString(b, i); i < 0 {
		return -1
	}
	if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// scanString scans the string starting at b[i] == '"' and returns the
// index past its closing quote, or -1.
func scanString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at b[i]
// and returns the index past it, or -1.
func scanNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
