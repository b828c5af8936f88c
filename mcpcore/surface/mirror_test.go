package surface

import (
	"reflect"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestMirror fails when the catalog, the McpServices port and the dispatch
// table disagree: a tool cannot ship without a port method and a dispatch
// entry, a port method cannot exist without a tool, and each entry calls a
// method taking the tool's argument record and returning the record its
// output schema describes (so an entry bound to another tool's method fails).
func TestMirror(t *testing.T) {
	port := reflect.TypeFor[ports.McpServices]()
	nonTool := map[string]bool{"WriteAudit": true, "Exposure": true, "Atomic": true, "SubmitJob": true, "AskConfirm": true, "UseConfirm": true}
	methods := map[string]reflect.Method{}
	for i := range port.NumMethod() {
		m := port.Method(i)
		if !nonTool[m.Name] {
			methods[m.Name] = m
		}
	}
	catalog := contracts.Catalog()
	if len(dispatch) != len(catalog) || len(methods) != len(catalog) {
		t.Fatalf("catalog has %d tools, dispatch %d entries, McpServices %d tool methods", len(catalog), len(dispatch), len(methods))
	}
	for _, def := range catalog {
		entry, ok := dispatch[def.Name]
		if !ok || entry.run == nil {
			t.Errorf("%s: no dispatch entry", def.Name)
			continue
		}
		m, ok := methods[camel(def.Name)]
		if !ok {
			t.Errorf("%s: McpServices has no method %s", def.Name, camel(def.Name))
			continue
		}
		// The method takes the record the tool's example decodes into.
		ex, ok := contracts.Examples()[def.Name]
		if !ok {
			t.Errorf("%s: no example", def.Name)
			continue
		}
		args, result := reflect.TypeOf(ex.Record), reflect.TypeOf(ex.Result)
		if got := m.Type.In(1); got != args {
			t.Errorf("%s: %s takes %v, the tool's argument record is %v", def.Name, m.Name, got, args)
		}
		if got := m.Type.Out(0); got != result {
			t.Errorf("%s: %s returns %v, the tool's result record is %v", def.Name, m.Name, got, result)
		}
		if entry.args != args || entry.result != result {
			t.Errorf("%s: the dispatch entry calls a method from %v to %v, the tool needs %v to %v",
				def.Name, entry.args, entry.result, args, result)
		}
	}
}

func camel(snake string) string {
	var b strings.Builder
	for _, part := range strings.Split(snake, "_") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
