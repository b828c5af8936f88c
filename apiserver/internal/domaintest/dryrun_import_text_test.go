package domain_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestImportTextDryRunPastOneChunk: a dry run of a text import larger
// than one transaction's 1,000 cards reports what the real import does:
// a line repeating one of an earlier chunk is a duplicate. Each chunk of
// the dry run was rolled back alone, so the repeat counted as created.
func TestImportTextDryRunPastOneChunk(t *testing.T) {
	eachStore(t, testImportTextDryRunPastOneChunk)
}

func testImportTextDryRunPastOneChunk(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Text")
	var b strings.Builder
	for i := range contracts.MaxBulkItems + 1 {
		fmt.Fprintf(&b, "front %d\tback %d\n", i, i)
	}
	b.WriteString("front 0\tback 0\n") // in the second chunk, a duplicate of the first line
	uid := mustUser(t, ctx)
	report := func(dry bool) contracts.ImportReport {
		t.Helper()
		rep, err := e.svc.Cards.ImportLarge(ctx, uid, d.ID, b.String(), contracts.ImportAuto, dry, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	dry := report(true)
	if got := e.deckCounts(ctx, d.ID); got != 0 {
		t.Fatalf("the dry run added %d cards", got)
	}
	real := report(false)
	if real.CardsCreated != contracts.MaxBulkItems+1 || len(real.Skipped) != 1 || real.Skipped[0].Count != 1 {
		t.Fatalf("real import: %+v", real)
	}
	if dry.CardsCreated != real.CardsCreated || len(dry.Skipped) != len(real.Skipped) {
		t.Fatalf("dry run %d created, skipped %+v; real import %d, %+v", dry.CardsCreated, dry.Skipped, real.CardsCreated, real.Skipped)
	}
}
