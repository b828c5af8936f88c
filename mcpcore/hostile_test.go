package mcpcore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func boundedTool() Tool {
	return Tool{
		Name: "bounded",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"n":{"type":"integer","minimum":1,"maximum":100},
			"xs":{"type":"array","items":{"type":"integer","maximum":10}},
			"s":{"type":"string","maxLength":3}},"additionalProperties":false}`),
		Handler: func(ctx context.Context, req *CallRequest) (*CallToolResult, error) { return TextResult("ran"), nil },
	}
}

// callWithin fails the test when the call takes longer than d (the work
// it started is not waited for).
func callWithin(t *testing.T, d time.Duration, s *Server, name, args string) CallToolResultWire {
	t.Helper()
	done := make(chan CallToolResultWire, 1)
	go func() { _, res := callTool(t, s, name, args); done <- res }()
	select {
	case res := <-done:
		return res
	case <-time.After(d):
		t.Fatalf("a %d-byte call took longer than %s", len(args), d)
	}
	return CallToolResultWire{}
}

// A 5 MB number literal, or a short one with a huge exponent, is refused
// quickly with a message naming the argument, instead of costing minutes
// of big-number arithmetic in the full validator.
func TestHugeNumberLiterals(t *testing.T) {
	s := newTestServer(t, Options{}, boundedTool())
	huge := "1" + strings.Repeat("0", 5<<20)
	for _, c := range []struct{ args, want string }{
		{`{"n":` + huge + `}`, "/n: number literal has 5242881 characters; at most 64 are allowed"},
		{`{"n":-` + huge + `.5}`, "/n: number literal has"},
		{`{"n":1e999999999}`, "/n: number exponent is out of range"},
		{`{"n":1E+0000000000000000999999999}`, "/n: number exponent is out of range"},
		{`{"xs":[1,2,1e-999999999]}`, "/xs/2: number exponent is out of range"},
		{`{"xs":[` + huge + `],"s":"toolong"}`, "/xs/0: number literal has"},
	} {
		res := callWithin(t, 10*time.Second, s, "bounded", c.args)
		if !res.IsError || !strings.Contains(res.Content[0].Text, c.want) {
			t.Errorf("%.40s…: %+v; want an error with %q", c.args, res, c.want)
		}
	}
	// Long but valid literals within the bounds still pass.
	res := callWithin(t, 10*time.Second, s, "bounded", `{"n":50.000000000000000000000000000000000000000000000000000,"xs":[1e1,-1e400]}`)
	if res.IsError {
		t.Errorf("literals within the bounds refused: %+v", res)
	}
}

// The list of violations is bounded: 50 lines, 16 KiB, "and N more".
func TestValidationErrorsBounded(t *testing.T) {
	s := newTestServer(t, Options{}, boundedTool())
	xs := make([]string, 10000)
	for i := range xs {
		xs[i] = "11"
	}
	res := callWithin(t, 10*time.Second, s, "bounded", `{"xs":[`+strings.Join(xs, ",")+`]}`)
	text := res.Content[0].Text
	if !res.IsError || strings.Count(text, "\n- ") != MaxViolations || !strings.HasSuffix(text, "… and 9950 more") {
		t.Errorf("10,000 violations gave %d lines, %d bytes, ending %q", strings.Count(text, "\n- "), len(text), text[max(0, len(text)-40):])
	}
	// Long lines (a key of 100 KB) stay within the byte budget.
	var keys []string
	for i := range 40 {
		keys = append(keys, fmt.Sprintf(`"%s%d":1`, strings.Repeat("k", 100<<10), i))
	}
	res = callWithin(t, 10*time.Second, s, "bounded", `{`+strings.Join(keys, ",")+`}`)
	if text := res.Content[0].Text; !res.IsError || len(text) > MaxViolationBytes+MaxViolationLine {
		t.Errorf("long violations: %d bytes, want at most %d", len(text), MaxViolationBytes+MaxViolationLine)
	}
}

// The tool's deadline starts before the arguments are checked: a call
// whose deadline passed during the check is answered as timed out and
// its handler never runs.
func TestDeadlineCoversValidation(t *testing.T) {
	var ran atomic.Bool
	tool := boundedTool()
	tool.Timeout = time.Nanosecond
	tool.Handler = func(ctx context.Context, req *CallRequest) (*CallToolResult, error) {
		ran.Store(true)
		return TextResult("ran"), nil
	}
	s := newTestServer(t, Options{}, tool)
	res := callWithin(t, 10*time.Second, s, "bounded", `{"n":5}`)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "timed out") || ran.Load() {
		t.Errorf("an expired deadline: %+v, handler ran: %v", res, ran.Load())
	}
}

// The cost of checking arguments on the full validator's path grows
// linearly with their size: compare MB/s across the sizes
// (go test -run '^$' -bench ArgCheckSize ./mcpcore).
func BenchmarkArgCheckSize(b *testing.B) {
	s := newTestServer(b, Options{}, boundedTool())
	te := s.toolIdx["bounded"]
	for _, size := range []int{1 << 10, 16 << 10, 256 << 10, 4 << 20} {
		shapes := map[string]string{
			"long-literal": `{"n":1` + strings.Repeat("0", size) + `}`,
			"many-numbers": `{"xs":[` + strings.TrimSuffix(strings.Repeat("123456789,", size/10), ",") + `]}`,
			"many-strings": `{"s":"` + strings.Repeat("x", size) + `"}`,
		}
		for _, name := range []string{"long-literal", "many-numbers", "many-strings"} {
			args := []byte(shapes[name])
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				for b.Loop() {
					if te.in.argViolations(args) == nil {
						b.Fatal("valid")
					}
				}
			})
		}
	}
}
