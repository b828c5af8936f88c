package surface

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestIntegralForms(t *testing.T) {
	for in, want := range map[string]string{
		`{"limit":10.0}`:                         `{"limit":10}`,
		`{"limit":1e1,"days":2.5E1,"x":-3.00e0}`: `{"limit":10,"days":25,"x":-3}`,
		`{"s":"1.0e1 10.0","n":[1.5,2.0]}`:       `{"s":"1.0e1 10.0","n":[1.5,2]}`,
		`{"s":"\"1.0\"","n":1e300}`:              `{"s":"\"1.0\"","n":1e300}`,
		`{"n":10}`:                               `{"n":10}`,
		`{"n":1e-1,"m":100e-2}`:                  `{"n":1e-1,"m":1}`,
	} {
		if got := string(integralForms([]byte(in))); got != want {
			t.Errorf("integralForms(%s) = %s, want %s", in, got, want)
		}
	}
}

// Integers written 10.0 or 1e1 decode as JSON Schema counts them; what
// still fails is described without Go type names.
func TestDecodeArgs(t *testing.T) {
	var a contracts.ListDecksArgs
	for _, raw := range []string{`{"limit":10.0}`, `{"limit":1e1}`, `{"limit":100E-1}`} {
		a = contracts.ListDecksArgs{}
		if err := decodeArgs(json.RawMessage(raw), &a); err != nil || a.Limit != 10 {
			t.Errorf("decodeArgs(%s) = %+v, %v; want limit 10", raw, a, err)
		}
	}
	for _, raw := range []string{`{"limit":1e300}`, `{"limit":10.5}`, `{"limit":"ten"}`, `[1]`, `{"limit":true}`} {
		err := decodeArgs(json.RawMessage(raw), &a)
		if !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("decodeArgs(%s) = %v, want invalid", raw, err)
			continue
		}
		msg := contracts.MessageOf(err)
		if goText := goTypeText.FindString(msg); goText != "" {
			t.Errorf("decodeArgs(%s) message %q shows Go text %q", raw, msg, goText)
		}
	}
}

var goTypeText = regexp.MustCompile(`\b(u?int(8|16|32|64)?|float(32|64)|struct|Go|unmarshal|contracts\.\w+)\b`)
