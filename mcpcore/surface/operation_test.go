package surface_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

// seqIDs mints op1, op2, …
type seqIDs struct{ n int }

func (s *seqIDs) NewID() string          { s.n++; return "op" + strconv.Itoa(s.n) }
func (s *seqIDs) Secret(bits int) string { return "secret" }

// A committed mutation's result carries its operation id, the one its
// audit row (and so its change records) has, first in structuredContent
// and in the text content a model reads; a dry run, a failed call and a
// replay carry none.
func TestOperationIDInResult(t *testing.T) {
	f := newFixtureWith(t, surface.Config{IDs: &seqIDs{}})
	f.exposure(contracts.ExposureSettings{})
	var audited []string
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e contracts.AuditEvent) error {
		audited = append(audited, e.OperationID)
		return nil
	}).AnyTimes()
	ctx := as(contracts.AllScopes...)
	args := json.RawMessage(`{"updates":[{"id":"c1","front":"x"}]}`)
	done := contracts.BulkResult{Items: []contracts.ItemOutcome{{Index: 0, Status: contracts.OutcomeUpdated, ID: "c1"}}, Counts: map[string]int{"updated": 1}}

	f.expectTool(contracts.ToolUpdateCards, done, nil)
	res, rerr := f.call(ctx, contracts.ToolUpdateCards, args)
	if rerr != nil || res.IsError || len(audited) != 1 || audited[0] == "" {
		t.Fatalf("update_cards: %+v %+v, audited %v", res, rerr, audited)
	}
	var got struct {
		OperationID string `json:"operationId"`
		contracts.BulkResult
	}
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil || got.OperationID != audited[0] || got.Counts["updated"] != 1 {
		t.Fatalf("structuredContent %s, audit row's operation id %q", res.StructuredContent, audited[0])
	}
	if len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, `{"operationId":"`+audited[0]+`",`) {
		t.Fatalf("text content %+v", res.Content)
	}

	for name, c := range map[string]struct {
		args   string
		result any
		err    error
	}{
		"dry run": {`{"updates":[{"id":"c1","front":"x"}],"dryRun":true}`, contracts.BulkResult{Counts: map[string]int{"updated": 1}, DryRun: true}, nil},
		"failed":  {string(args), contracts.BulkResult{}, contracts.Errorf(contracts.KindNotFound, "no such deck")},
		"replay":  {string(args), contracts.BulkResult{Counts: map[string]int{"updated": 1}, Replayed: true}, nil},
	} {
		f.expectTool(contracts.ToolUpdateCards, c.result, c.err)
		res, rerr := f.call(ctx, contracts.ToolUpdateCards, json.RawMessage(c.args))
		if rerr != nil || strings.Contains(string(res.StructuredContent), "operationId") || strings.Contains(res.Content[0].Text, "operationId") {
			t.Errorf("%s: %+v %+v", name, res, rerr)
		}
	}

	// A job's records use its id: that is the operation id of its call.
	job := contracts.Job{ID: "j9", Kind: contracts.JobKindImportPackage, Status: contracts.JobQueued}
	f.expectTool(contracts.ToolImportPackage, job, nil)
	res, rerr = f.call(ctx, contracts.ToolImportPackage, json.RawMessage(`{"uploadId":"m1"}`))
	if rerr != nil || res.IsError || !strings.HasPrefix(string(res.StructuredContent), `{"operationId":"j9",`) {
		t.Fatalf("import_package: %+v %+v", res, rerr)
	}
}

// A call whose confirmation dry run fails answers with that failure (an
// isError result, audited as a failed call) and does not run unconfirmed.
func TestConfirmDryRunFailure(t *testing.T) {
	f := newFixture(t)
	th := contracts.DefaultConfirmThresholds
	f.exposure(contracts.ExposureSettings{Confirm: &th})
	var outcome contracts.AuditOutcome
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e contracts.AuditEvent) error {
		outcome = e.Outcome
		return nil
	})
	// One call only, the dry run: gomock fails on a second (the real call).
	f.ctrl.RecordCall(f.svc, "DeleteDeck", gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, a contracts.DeleteDeckArgs) (contracts.DeleteResult, error) {
			if !a.DryRun {
				t.Error("the gate ran the call itself")
			}
			return contracts.DeleteResult{}, contracts.Errorf(contracts.KindNotFound, "deck d1 not found")
		})
	res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolDeleteDeck, json.RawMessage(`{"deckId":"d1"}`))
	if rerr != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "deck d1 not found") {
		t.Fatalf("delete_deck whose dry run fails: %+v %+v", res, rerr)
	}
	if outcome != contracts.AuditError {
		t.Errorf("audit outcome %q, want %q", outcome, contracts.AuditError)
	}
}
