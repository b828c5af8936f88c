package domain_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// TestUndoOptimisedWeights: an optimiser run records the preset's
// previous weights under the job's id (its operation id), and
// undo_changes by that id puts them back (the defaults, no optimisation
// time); undoing the undo brings the fitted weights back, and once the
// weights are set by hand, undoing again is skipped with a reason and
// changes nothing.
func TestUndoOptimisedWeights(t *testing.T) { eachStore(t, testUndoOptimisedWeights) }

func testUndoOptimisedWeights(t *testing.T, store string) {
	e := newEnvIDs(t, store, fsrs.New(), &countedIDs{}) // the held-out cards are the same every run
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Learner")
	cards := ids(e.add(ctx, d.ID, manyCards("learner", 200)...))
	simulatedHistory(t, e, ctx, d, cards, 120, 1)
	job, err := e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	rep := report(t, runJob(t, e, ctx, job))
	if !rep.Applied {
		t.Fatalf("not applied: %+v", rep)
	}
	weights := func() ([]float64, *time.Time) {
		t.Helper()
		got, err := e.svc.Decks.GetDeck(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Settings.Weights, got.Settings.WeightsOptimizedAt
	}
	if w, at := weights(); !slices.Equal(w, rep.Weights) || at == nil {
		t.Fatalf("after the job: %v at %v", w, at)
	}
	// The job's audit row carries its id as operation id, which its
	// record shares: the audit page offers Undo on it.
	events, err := e.store.Audit().ListAudit(ctx, mustUser(t, ctx), contracts.AuditFilter{Tool: contracts.AuditOptimized}, "", 10)
	if err != nil || len(events) != 1 || events[0].OperationID != job.ID || !slices.Contains(events[0].AffectedIDs, rep.PresetID) {
		t.Fatalf("the optimiser's audit rows: %+v %v", events, err)
	}
	if st, err := e.svc.Undo.OperationStates(ctx, []string{job.ID}); err != nil || st[job.ID].Records != 1 || st[job.ID].Undone != 0 {
		t.Fatalf("the job's operation state: %+v %v", st, err)
	}

	e.clock.Advance(time.Minute)
	undo, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{job.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if undo.Undone != 1 || undo.Skipped != 0 || undo.Items[0].Kind != contracts.ChangePresetUpdate {
		t.Fatalf("undo of the job: %+v", undo)
	}
	if w, at := weights(); !slices.Equal(w, contracts.DefaultWeights) || at != nil {
		t.Errorf("after the undo: %v at %v; want the defaults, never optimised", w, at)
	}
	// The cards' memory states follow the weights put back, as they
	// follow new weights: the undo queued the recompute job.
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "undo", Lease: time.Minute})
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Errorf("after the undo no job ran (%v, %v); want the recompute of memory states", ran, err)
	}

	e.clock.Advance(time.Minute)
	redo, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{undo.OperationID}})
	if err != nil {
		t.Fatal(err)
	}
	if redo.Undone != 1 {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	if w, at := weights(); !slices.Equal(w, rep.Weights) || at == nil || !at.Equal(t0) {
		t.Errorf("after redoing: %v at %v; want the fitted weights at %v", w, at, t0)
	}

	e.clock.Advance(time.Minute)
	mine := slices.Clone(contracts.DefaultWeights)
	mine[0] += 0.1
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Weights: mine}); err != nil {
		t.Fatal(err)
	}
	stale, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{redo.OperationID}})
	if err != nil {
		t.Fatal(err)
	}
	if stale.Undone != 0 || stale.Skipped != 1 || !strings.Contains(stale.Items[0].Reason, "changed after") {
		t.Fatalf("undo after weights set by hand: %+v", stale)
	}
	if w, _ := weights(); !slices.Equal(w, mine) {
		t.Errorf("the skipped undo changed the weights: %v, want %v", w, mine)
	}
}
