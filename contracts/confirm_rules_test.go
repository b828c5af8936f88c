package contracts_test

import (
	"encoding/json"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// An account that stored its thresholds before a rule existed gets the
// rule's default, not 0 (off); a stored 0 stays off. An import_package
// dry run's job counts the notes it would replace.
func TestConfirmThresholdsAndImportCount(t *testing.T) {
	var old, off contracts.ConfirmThresholds
	if err := json.Unmarshal([]byte(`{"deckCards":2,"deleteCards":5,"updateCards":7,"rescheduleCards":9}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.ReplaceNotes != contracts.DefaultConfirmThresholds.ReplaceNotes || old.DeckCards != 2 || old.RescheduleCards != 9 {
		t.Errorf("thresholds stored before replaceNotes: %+v", old)
	}
	if err := json.Unmarshal([]byte(`{"replaceNotes":0}`), &off); err != nil || off.ReplaceNotes != 0 || off.For(contracts.ConfirmReplaceNotes) != 0 {
		t.Errorf("replaceNotes 0: %+v %v", off, err)
	}
	rep, _ := json.Marshal(contracts.ImportReport{NotesCreated: 4, NotesUpdated: 10, NotesUnchanged: 7})
	dry := contracts.Job{Kind: contracts.JobKindImportPreview, Status: contracts.JobSucceeded, DryRun: true, Result: rep}
	if n := contracts.ConfirmCount(dry); n != 3 || !contracts.DefaultConfirmThresholds.Needs(contracts.ConfirmReplaceNotes, n) {
		t.Errorf("count %d of a dry run replacing 3 notes", n)
	}
	if p := contracts.PreviewOf(dry); p.Count != 3 || p.Counts["notes added"] != 4 || p.Counts["notes left as they are"] != 7 {
		t.Errorf("preview %+v", p)
	}
	queued := dry
	queued.DryRun, queued.ID, queued.Kind = false, "j1", contracts.JobKindImportPackage
	if n := contracts.ConfirmCount(queued); n != 0 {
		t.Errorf("an import job counts %d", n)
	}
	running := dry
	running.ID, running.Status = "j2", contracts.JobRunning
	if n := contracts.ConfirmCount(running); n != 0 {
		t.Errorf("a preview still running counts %d", n)
	}
}
