package mcpcore

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// verdict is the fast path's answer. vValid and vInvalid are exact (the
// full validator would agree); vUnknown means only the full validator can
// tell (an escaped key, a number written with an exponent, a duplicate key
// whose values disagree, …).
type verdict uint8

const (
	vInvalid verdict = iota
	vValid
	vUnknown
)

// and combines the verdicts of two checks that must both pass.
func and(a, b verdict) verdict {
	switch {
	case a == vInvalid || b == vInvalid:
		return vInvalid
	case a == vUnknown || b == vUnknown:
		return vUnknown
	}
	return vValid
}

// check judges the raw JSON value v, which must be well-formed JSON (the
// request body passed validJSON). It does not allocate unless a string it
// must measure or compare contains escapes or invalid UTF-8.
func (n *fastNode) check(v []byte) verdict {
	switch n.constant {
	case 1:
		return vValid
	case -1:
		return vInvalid
	}
	k := kindOf(v)
	if n.hasEnum && k != '"' {
		return vInvalid // the enums of the subset hold strings only
	}
	var r verdict
	switch k {
	case '{':
		if !n.allows(kindObject) {
			return vInvalid
		}
		r = n.checkObject(v)
	case '[':
		if !n.allows(kindArray) {
			return vInvalid
		}
		r = n.checkArray(v)
	case '"':
		if !n.allows(kindString) {
			return vInvalid
		}
		r = n.checkString(v)
	case 't', 'f':
		if !n.allows(kindBoolean) {
			return vInvalid
		}
		r = vValid
	case 'n':
		if !n.allows(kindNull) {
			return vInvalid
		}
		r = vValid
	default:
		r = n.checkNumber(v)
	}
	if r == vInvalid {
		return r
	}
	return and(r, n.checkApplicators(v))
}

func (n *fastNode) allows(k kindSet) bool { return n.types == 0 || n.types&k != 0 }

func (n *fastNode) checkNumber(v []byte) verdict {
	if len(v) > MaxNumberLiteral || checkLiteral(v) != "" {
		return vInvalid // out of bounds: the full validator names it
	}
	d, plain := parseDecimal(v) // plain: no exponent
	if n.types != 0 && n.types&kindNumber == 0 {
		switch {
		case n.types&kindInteger == 0:
			return vInvalid
		case !plain:
			return vUnknown // 1e2 is an integer, 1.5e0 is not
		case len(d.frac) > 0:
			return vInvalid
		}
	}
	if !n.min.set && !n.max.set && !n.exMin.set && !n.exMax.set {
		return vValid
	}
	if !plain {
		return vUnknown
	}
	if n.min.set && cmpDecimal(d, n.min) < 0 ||
		n.max.set && cmpDecimal(d, n.max) > 0 ||
		n.exMin.set && cmpDecimal(d, n.exMin) <= 0 ||
		n.exMax.set && cmpDecimal(d, n.exMax) >= 0 {
		return vInvalid
	}
	return vValid
}

func (n *fastNode) checkString(v []byte) verdict {
	if n.minLen < 0 && n.maxLen < 0 && !n.hasEnum {
		return vValid
	}
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
		// Decode as encoding/json does (escapes, U+FFFD for bad bytes).
		var dec string
		if json.Unmarshal(v, &dec) != nil {
			return vUnknown
		}
		s = []byte(dec)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		runes := utf8.RuneCount(s)
		if runes < n.minLen || n.maxLen >= 0 && runes > n.maxLen {
			return vInvalid
		}
	}
	if n.hasEnum {
		for _, e := range n.enum {
			if string(s) == e {
				return vValid
			}
		}
		return vInvalid
	}
	return vValid
}

// checkObject applies properties, required and additionalProperties. The
// full validator decodes into a map, where the last of duplicate keys wins;
// a failure that a duplicate might hide is therefore reported as unknown.
func (n *fastNode) checkObject(v []byte) verdict {
	it, _ := newObjIter(v)
	var seen uint64
	dup := false
	props, other := vValid, vValid
	for {
		k, val, ok := it.next()
		if !ok {
			break
		}
		if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
			return vUnknown // its decoded name is not its raw bytes
		}
		i := n.rawPropIndex(k)
		if i >= 0 {
			bit := uint64(1) << i
			dup = dup || seen&bit != 0
			seen |= bit
			if p := &n.props[i]; p.declared {
				if p.node != nil {
					props = and(props, p.node.check(val))
				}
				continue
			}
		}
		switch n.additional {
		case -1:
			other = vInvalid
		case 1:
			if r := n.addlNode.check(val); r != vValid {
				props = and(props, vUnknown) // a later duplicate may win
			}
		}
	}
	if seen&n.requiredMask != n.requiredMask {
		other = vInvalid
	}
	if dup && props == vInvalid {
		props = vUnknown
	}
	return and(props, other)
}

// rawPropIndex is propIndex for a raw key without escapes.
func (n *fastNode) rawPropIndex(k []byte) int {
	for i := range n.props {
		if n.props[i].name == string(k) {
			return i
		}
	}
	return -1
}

func (n *fastNode) checkArray(v []byte) verdict {
	r := vValid
	count := 0
	i := skipWS(v, 1)
	for i < len(v) && v[i] != ']' {
		end := skipValue(v, i)
		count++
		if n.items != nil {
			if r = and(r, n.items.check(v[i:end])); r == vInvalid {
				return r
			}
		}
		i = skipWS(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipWS(v, i+1)
		}
	}
	if count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
		return vInvalid
	}
	return r
}

// checkApplicators applies allOf, anyOf, oneOf and not to v.
func (n *fastNode) checkApplicators(v []byte) verdict {
	r := vValid
	for _, s := range n.allOf {
		if r = and(r, s.check(v)); r == vInvalid {
			return r
		}
	}
	if n.anyOf != nil {
		some := vInvalid
		for _, s := range n.anyOf {
			switch s.check(v) {
			case vValid:
				some = vValid
			case vUnknown:
				some = vUnknown
			}
			if some == vValid {
				break
			}
		}
		if r = and(r, some); r == vInvalid {
			return r
		}
	}
	if n.oneOf != nil {
		matched, unknown := 0, false
		for _, s := range n.oneOf {
			switch s.check(v) {
			case vValid:
				matched++
			case vUnknown:
				unknown = true
			}
		}
		one := vInvalid
		switch {
		case matched > 1:
			one = vInvalid
		case unknown:
			one = vUnknown
		case matched == 1:
			one = vValid
		}
		if r = and(r, one); r == vInvalid {
			return r
		}
	}
	if n.not != nil {
		switch n.not.check(v) {
		case vValid:
			return vInvalid
		case vUnknown:
			r = and(r, vUnknown)
		}
	}
	return r
}
