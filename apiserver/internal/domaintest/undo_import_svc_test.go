package domain_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
)

// TestUndoImportUpdates: a re-import that edits a note the account had
// and reschedules a card records them (under the import's operation id),
// and undo_changes puts back the note's fields and its card's text and
// the card's schedule; undoing the undo redoes; after a later edit of
// the note, undoing again skips the note with a reason.
func TestUndoImportUpdates(t *testing.T) { eachStore(t, testUndoImportUpdates) }

func testUndoImportUpdates(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	uid := p.UserID
	pkg := benchPackage(10, 100, 0, 0)
	if _, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	edited, moved := importedNoteID(uid, "bench-1"), importedNoteID(uid, "bench-4")
	state := func() string {
		t.Helper()
		ns, err := e.store.Notes().GetNotes(ctx, uid, []string{edited})
		if err != nil || len(ns) != 1 {
			t.Fatalf("note: %+v, %v", ns, err)
		}
		s := fmt.Sprintf("%q %v |", ns[0].Fields, ns[0].Tags)
		for _, id := range []string{edited, moved} {
			cs, err := e.store.Notes().CardsOfNotes(ctx, uid, []string{id})
			if err != nil || len(cs) != 1 {
				t.Fatalf("cards of %s: %+v, %v", id, cs, err)
			}
			c := cs[0]
			s += fmt.Sprintf(" %q/%q due %s reps %d;", c.Front, c.Back, c.State.Due.UTC().Format(time.RFC3339), c.State.Reps)
		}
		return s
	}
	before := state()

	pkg.Notes[1].Fields = []string{"<b>word one</b>", "edited"}
	pkg.Cards[4].State.Due, pkg.Cards[4].State.Reps = t0.Add(40*24*time.Hour), 9
	e.clock.Advance(time.Minute)
	rep, err := e.svc.Import.Apply(contracts.WithOperationID(ctx, "op-import"), sourceOf(pkg), exchange.ImportOptions{})
	if err != nil || rep.NotesCreated != 0 {
		t.Fatalf("re-import: %+v, %v", rep, err)
	}
	changed := state()
	if changed == before {
		t.Fatalf("the re-import changed nothing: %s", changed)
	}
	undo := func(op string) contracts.UndoChangesResult {
		t.Helper()
		e.clock.Advance(time.Minute)
		res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	u := undo("op-import")
	// The note, the rescheduled card and the new cards the re-import
	// gave today's due time.
	if u.Undone < 2 || u.Skipped != 0 {
		t.Fatalf("undo of the import's updates: %+v", u)
	}
	if got := state(); got != before {
		t.Errorf("after the undo:\n got %s\nwant %s", got, before)
	}
	redo := undo(u.OperationID)
	if redo.Undone != u.Undone {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	if got := state(); got != changed {
		t.Errorf("after redoing:\n got %s\nwant %s", got, changed)
	}
	if _, err := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{{ID: edited, Tags: &[]string{"mine"}}}}); err != nil {
		t.Fatal(err)
	}
	stale := undo(redo.OperationID)
	noteSkipped := false
	for _, it := range stale.Items {
		if it.Kind == contracts.ChangeNoteUpdate {
			noteSkipped = it.ID == edited && it.Status == contracts.UndoSkipped && strings.Contains(it.Reason, "changed after")
		}
	}
	if !noteSkipped {
		t.Errorf("undo after an edit of the note: %+v", stale)
	}
	if ns, err := e.store.Notes().GetNotes(ctx, uid, []string{edited}); err != nil || len(ns) != 1 || ns[0].Fields[1] != "edited" || len(ns[0].Tags) != 1 || ns[0].Tags[0] != "mine" {
		t.Errorf("the skipped undo changed the note: %+v, %v", ns, err)
	}
}
