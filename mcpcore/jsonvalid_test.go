package mcpcore

import (
	"encoding/json"
	"strings"
	"testing"
)

var validJSONSeeds = []string{
	``, ` `, `1`, `-0`, `-`, `01`, `1.`, `1.5e`, `1.5e+3`, `1E-0`, `.5`, `-a`, `1x`, `truex`, `tru`, `nul`, `null`,
	`""`, `"\u00e9\/\b\f\n\r\t\"\\"`, `"\u00g0"`, `"\x"`, "\"\x01\"", "\"\xff\xfe\"", `"abc`, `"\u12"`,
	`{}`, `{ }`, `{"a":1}`, `{"a" : [1, 2 ,{"b":null}] }`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`,
	`[]`, `[1,]`, `[,1]`, `[1 2]`, `[1]]`, `[[1]`, `{"a":[}]`, `[{]}`, ` [ true , false ] `, "\t{}\r\n", `{} {}`, `[] x`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from mcpbench: مرحبا"}}}`,
}

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestValidJSON(t *testing.T) {
	cases := append([]string(nil), validJSONSeeds...)
	cases = append(cases,
		nested("[", "]", 64), nested("[", "]", 65), nested(`{"a":`, "}", 200), nested(`[{"k":`, "}]", 100),
		nested("[", "]", maxNesting), nested("[", "]", maxNesting+1), nested("[", "]", maxNesting+1)[1:],
		strings.Repeat("[", 70)+strings.Repeat("]", 69)+"}", strings.Repeat(`{"a":`, 70)+"1"+strings.Repeat("}", 69)+"]",
	)
	for _, c := range cases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.80q) = %v, json.Valid %v", c, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	body := []byte(validJSONSeeds[len(validJSONSeeds)-1])
	b.Run("validJSON", func(b *testing.B) {
		for b.Loop() {
			validJSON(body)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(body)
		}
	})
}
