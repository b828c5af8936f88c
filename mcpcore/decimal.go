package mcpcore

import "bytes"

// decimal is an exact decimal number read from a JSON number literal
// without exponent, for comparing arguments with schema bounds without
// floating-point rounding. Its digit slices alias the literal.
type decimal struct {
	set  bool   // parsed (a bound is present)
	neg  bool   // below zero (never set for zero)
	intg []byte // integer digits, no leading zeros
	frac []byte // fraction digits, no trailing zeros
}

// parseDecimal parses -?digits(.digits)? ; ok is false for anything else
// (notably an exponent).
func parseDecimal(b []byte) (d decimal, ok bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start {
		return decimal{}, false
	}
	d.intg = bytes.TrimLeft(b[start:i], "0")
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == fs {
			return decimal{}, false
		}
		d.frac = bytes.TrimRight(b[fs:i], "0")
	}
	if i != len(b) {
		return decimal{}, false
	}
	if len(d.intg) == 0 && len(d.frac) == 0 {
		d.neg = false // -0 is 0
	}
	d.set = true
	return d, true
}

// cmpDecimal returns -1, 0 or +1 as a is less than, equal to or greater than b.
func cmpDecimal(a, b decimal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpMagnitude(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpMagnitude(a, b decimal) int {
	switch {
	case len(a.intg) < len(b.intg):
		return -1
	case len(a.intg) > len(b.intg):
		return 1
	}
	if c := bytes.Compare(a.intg, b.intg); c != 0 {
		return c
	}
	// Without trailing zeros, fraction digits compare lexicographically.
	return bytes.Compare(a.frac, b.frac)
}
