// Command toolbytes prints the served size of tools/list in both protocol
// eras for the default toolset, every tool, and each toolset: what a host
// puts in its model's context before the user says a word (issue 25 §1.3).
// `make bench` runs it; TestToolsListBudget enforces the budgets.
package main

import (
	"fmt"
	"log"

	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

func main() {
	sizes, err := surface.MeasureLists()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tools/list served bytes (budgets: default %d, all %d)\n", surface.DefaultListBudget, surface.AllListBudget)
	fmt.Printf("%-10s %12s %12s\n", "toolsets", "2025-11-25", "2026-07-28")
	for _, s := range sizes {
		fmt.Printf("%-10s %12d %12d\n", s.Choice, s.Legacy, s.Modern)
	}
}
