package surface_test

import (
	"testing"

	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

// TestToolsListBudget owns the tools/list budget (issue 25 §1.3) for every
// later change that adds tools or text: the served bytes of each era, the
// lean default at most 12,288 and every tool together at most 32,768.
func TestToolsListBudget(t *testing.T) {
	sizes, err := surface.MeasureLists()
	if err != nil {
		t.Fatal(err)
	}
	budget := map[string]int{"default": surface.DefaultListBudget, "all": surface.AllListBudget}
	for _, s := range sizes {
		t.Logf("tools/list %-8s 2025-11-25: %6d bytes  2026-07-28: %6d bytes", s.Choice, s.Legacy, s.Modern)
		if b, ok := budget[s.Choice]; ok && (s.Legacy > b || s.Modern > b) {
			t.Errorf("tools/list of %s is %d (2025-11-25) and %d (2026-07-28) bytes; the budget is %d", s.Choice, s.Legacy, s.Modern, b)
		}
	}
	if len(sizes) < 3 || sizes[0].Choice != "default" || sizes[1].Choice != "all" {
		t.Fatalf("measured %v; want the default, all and each set", sizes)
	}
}
