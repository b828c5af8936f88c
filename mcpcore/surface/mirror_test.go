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
// entry, and a port method cannot exist without a tool.
func TestMirror(t *testing.T) {
	port := reflect.TypeFor[ports.McpServices]()
	nonTool := map[string]bool{"WriteAudit": true, "Exposure": true}
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
		if dispatch[def.Name] == nil {
			t.Errorf("%s: no dispatch entry", def.Name)
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
		if got, want := m.Type.In(1), reflect.TypeOf(ex.Record); got != want {
			t.Errorf("%s: %s takes %v, the tool's argument record is %v", def.Name, m.Name, got, want)
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
