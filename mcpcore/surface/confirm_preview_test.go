package surface_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestConfirmWaitsForPreviewJob: import_package's confirmation is decided
// from its dry run, which for a big package is a preview job: while that
// job has not succeeded the call does not run (no import, no audit row,
// no question) and says which job to poll; once it has, the count it
// reports decides as an in-call dry run's does: a link past the
// threshold, the import below it.
func TestConfirmWaitsForPreviewJob(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{Confirm: &contracts.ConfirmThresholds{ReplaceNotes: 1}})
	ctx := as(contracts.AllScopes...)
	args := json.RawMessage(`{"uploadId":"m1"}`)
	preview := func(j contracts.Job) {
		f.svc.EXPECT().ImportPackage(gomock.Any(), contracts.ImportPackageArgs{UploadID: "m1", DryRun: true}).Return(j, nil)
	}
	report := func(replaced int) json.RawMessage {
		b, _ := json.Marshal(contracts.ImportReport{NotesCreated: 3, NotesUpdated: replaced + 1, NotesUnchanged: 1})
		return b
	}
	job := contracts.Job{ID: "p1", Kind: contracts.JobKindImportPreview, Status: contracts.JobRunning, DryRun: true}

	// Running, then failed: nothing runs (an import call would fail the test).
	for _, c := range []struct {
		status contracts.JobStatus
		say    string
	}{{contracts.JobRunning, "Poll get_job p1 until it has ended, then call import_package again"}, {contracts.JobFailed, "ended failed: too big"}} {
		j := job
		j.Status, j.Error = c.status, "too big"
		preview(j)
		res, rerr := f.call(ctx, contracts.ToolImportPackage, args)
		if rerr != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, c.say) || res.Meta[contracts.MetaErrorKind] != "preview_pending" {
			t.Fatalf("%s preview: %+v %+v", c.status, rerr, res)
		}
	}

	// Succeeded, replacing 2 notes: the person is asked.
	done := job
	done.Status, done.Result = contracts.JobSucceeded, report(2)
	preview(done)
	f.svc.EXPECT().AskConfirm(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, r contracts.ConfirmRequest) (contracts.Confirmation, error) {
		if r.Preview.Count != 2 || r.Preview.Counts["notes added"] != 3 {
			t.Errorf("the question's preview %+v", r.Preview)
		}
		return contracts.Confirmation{ID: "tbcf_x", Tool: r.Tool, Preview: r.Preview, State: contracts.ConfirmPending}, nil
	})
	if res, rerr := f.call(ctx, contracts.ToolImportPackage, args); rerr != nil || !res.IsError || res.Meta[contracts.MetaErrorKind] != "confirmation_required" {
		t.Fatalf("a preview replacing notes: %+v %+v", rerr, res)
	}

	// Succeeded, replacing none: the import runs.
	done.Result = report(0)
	preview(done)
	f.svc.EXPECT().ImportPackage(gomock.Any(), contracts.ImportPackageArgs{UploadID: "m1"}).
		Return(contracts.Job{ID: "j1", Kind: contracts.JobKindImportPackage, Status: contracts.JobQueued}, nil)
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).Return(nil)
	if res, rerr := f.call(ctx, contracts.ToolImportPackage, args); rerr != nil || res.IsError {
		t.Fatalf("a preview replacing nothing: %+v %+v", rerr, res)
	}
}
