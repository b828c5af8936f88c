package surface_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
	"github.com/takhtabush/takhtabush/ports/mock"
)

// TestAuditFields: every mutating tool writes one audit event after the
// service call, with the principal, tool, action, a bounded summary, the
// affected ids and the request id; read tools write none.
func TestAuditFields(t *testing.T) {
	for _, def := range contracts.Catalog() {
		t.Run(def.Name, func(t *testing.T) {
			f := newFixture(t)
			f.exposure(contracts.ExposureSettings{})
			ex := contracts.Examples()[def.Name]
			svcCall := f.expectTool(def.Name, ex.Result, nil)
			if def.AuditAction == "" {
				// No WriteAudit expectation: a write fails the test.
				if _, rerr := f.call(as(contracts.AllScopes...), def.Name, ex.Args); rerr != nil {
					t.Fatal(rerr)
				}
				return
			}
			var got contracts.AuditEvent
			f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).After(svcCall).
				DoAndReturn(func(ctx context.Context, e contracts.AuditEvent) error {
					if !inTx(ctx) {
						t.Errorf("the audit row of a successful call was written outside the mutation's transaction")
					}
					got = e
					return nil
				})
			res, rerr := f.call(as(contracts.AllScopes...), def.Name, ex.Args)
			if rerr != nil || res.IsError {
				t.Fatalf("%+v %+v", rerr, res)
			}
			if got.UserID != "u1" || got.CredentialKind != contracts.CredentialAPIKey || got.CredentialID != "k1" {
				t.Errorf("principal fields: %+v", got)
			}
			if got.Tool != def.Name || got.Action != def.AuditAction || got.Outcome != contracts.AuditOK || got.ErrorKind != "" {
				t.Errorf("tool fields: %+v", got)
			}
			if got.RequestID != "7" {
				t.Errorf("request id %q, want the JSON-RPC id 7", got.RequestID)
			}
			if len(got.AffectedIDs) == 0 {
				t.Errorf("no affected ids")
			}
			if !json.Valid(got.InputSummary) || len(got.InputSummary) > contracts.MaxAuditSummaryBytes {
				t.Errorf("summary invalid or too long: %s", got.InputSummary)
			}
			if res.Meta[surface.MetaAuditFailed] != nil {
				t.Errorf("audit marked failed: %v", res.Meta)
			}
		})
	}
}

// TestAuditFailureKeepsResult: a failed audit write leaves the result as it
// is, marked in _meta; the mutation is not undone or reported as failed.
func TestAuditFailureKeepsResult(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	ex := contracts.Examples()[contracts.ToolCreateDeck]
	f.expectTool(contracts.ToolCreateDeck, ex.Result, nil)
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).Return(errors.New("disk full"))
	res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolCreateDeck, ex.Args)
	if rerr != nil || res.IsError {
		t.Fatalf("the mutation must still succeed: %+v %+v", rerr, res)
	}
	if res.Meta[surface.MetaAuditFailed] != true {
		t.Fatalf("_meta = %v, want %s", res.Meta, surface.MetaAuditFailed)
	}
	if !strings.Contains(f.logs.String(), "audit write failed") {
		t.Fatalf("audit failure not logged: %s", f.logs)
	}
}

// TestServiceErrors: domain failures become tool results a model can act
// on; internal failures carry a reference, never their cause; the audit
// row records the failure.
func TestServiceErrors(t *testing.T) {
	cases := []struct {
		err      error
		wantText string
		kind     contracts.ErrorKind
	}{
		{contracts.Errorf(contracts.KindNotFound, "deck d9 not found"), "Not found: deck d9 not found", contracts.KindNotFound},
		{contracts.Errorf(contracts.KindConflict, "a deck named Geography exists"), "Conflict: a deck named Geography exists", contracts.KindConflict},
		{contracts.Errorf(contracts.KindInvalid, "name must be 1-200 characters"), "Invalid input: name must be 1-200 characters", contracts.KindInvalid},
		{contracts.Internal(errors.New(`pq: duplicate key value violates unique constraint "decks_pkey" SELECT secret`)), "Internal error (ref ", contracts.KindInternal},
		{fmt.Errorf("wrapped: %w", errors.New("sqlite: database is locked")), "Internal error (ref ", contracts.KindInternal},
	}
	for _, tc := range cases {
		f := newFixture(t)
		f.exposure(contracts.ExposureSettings{})
		var got contracts.AuditEvent
		f.expectTool(contracts.ToolCreateDeck, contracts.Deck{}, tc.err)
		f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, e contracts.AuditEvent) error {
			if inTx(ctx) {
				t.Errorf("the audit row of a failed call was written in its rolled-back transaction")
			}
			got = e
			return nil
		})
		res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolCreateDeck, json.RawMessage(`{"name":"Geography"}`))
		if rerr != nil || !res.IsError {
			t.Fatalf("%v: want an isError result, got %+v %+v", tc.err, rerr, res)
		}
		text := res.Content[0].Text
		if !strings.HasPrefix(text, tc.wantText) {
			t.Errorf("%v: text %q, want prefix %q", tc.err, text, tc.wantText)
		}
		for _, leak := range []string{"pq:", "SELECT", "sqlite", "locked"} {
			if strings.Contains(text, leak) {
				t.Errorf("result leaks %q: %s", leak, text)
			}
		}
		if got.Outcome != contracts.AuditError || got.ErrorKind != tc.kind {
			t.Errorf("%v: audit outcome %q kind %q", tc.err, got.Outcome, got.ErrorKind)
		}
		if len(got.AffectedIDs) != 0 {
			t.Errorf("create_deck that failed touched %v", got.AffectedIDs)
		}
	}
}

// TestArgumentErrors: arguments that break the schema never reach the
// service and come back as one isError result listing every violation.
func TestArgumentErrors(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolAddCards, json.RawMessage(`{"deckId":"","cards":[{"front":"Q"}],"bogus":1}`))
	if rerr != nil || !res.IsError {
		t.Fatalf("%+v %+v", rerr, res)
	}
	text := res.Content[0].Text
	for _, want := range []string{"/deckId", "/cards/0", "bogus"} {
		if !strings.Contains(text, want) {
			t.Errorf("violation list misses %s: %s", want, text)
		}
	}
}

// TestRenderStudySession: given a deck it starts a session, which also
// needs study:write; the text leads with an absolute study link and the
// result links the widget.
func TestRenderStudySession(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	if _, rerr := f.call(as(contracts.ScopeStudyRender), contracts.ToolRenderStudySession, json.RawMessage(`{"deckId":"d1"}`)); rerr == nil ||
		rerr.Code != -32003 || !strings.Contains(string(rerr.Data), "study:write") {
		t.Fatalf("deckId without study:write: %+v", rerr)
	}
	sess := contracts.StudyView{StudySession: contracts.StudySession{ID: "s1", DeckID: "d1", Remaining: 4, StudyURL: "https://tb.example/study/s1"},
		Lead: "Study session s1: 4 card(s) to go. Study it here: https://tb.example/study/s1"}
	f.expectTool(contracts.ToolRenderStudySession, sess, nil)
	// A session id alone is a read: no audit row.
	res, rerr := f.call(as(contracts.ScopeStudyRender), contracts.ToolRenderStudySession, json.RawMessage(`{"sessionId":"s1"}`))
	if rerr != nil || res.IsError {
		t.Fatalf("%+v %+v", rerr, res)
	}
	if res.Content[0].Text != sess.Lead {
		t.Fatalf("the text does not lead with the study link: %q", res.Content[0].Text)
	}
	ui, _ := res.Meta["ui"].(map[string]any)
	if ui["resourceUri"] != contracts.StudyWidgetURI || res.Meta["ui/resourceUri"] != contracts.StudyWidgetURI ||
		res.Meta["openai/outputTemplate"] != contracts.StudyWidgetURI {
		t.Fatalf("_meta does not link the widget for every host: %v", res.Meta)
	}
	r := f.rpc(as(contracts.ScopeStudyRender), "resources/read", map[string]any{"uri": contracts.StudyWidgetURI})
	if r.Error != nil || !strings.Contains(string(r.Result), "text/html;profile=mcp-app") || !strings.Contains(string(r.Result), "https://tb.example") {
		t.Fatalf("widget resource: %+v %s", r.Error, r.Result)
	}
	if r := f.rpc(as(contracts.ScopeDecksRead), "resources/read", map[string]any{"uri": contracts.StudyWidgetURI}); r.Error == nil {
		t.Fatalf("widget readable without study:render: %s", r.Result)
	}
}

func TestSummarizeBounds(t *testing.T) {
	var cards []string
	for i := range 1000 {
		cards = append(cards, fmt.Sprintf(`{"front":"%s","back":"answer %d"}`, strings.Repeat("é", 500), i))
	}
	args := json.RawMessage(`{"deckId":"d1","cards":[` + strings.Join(cards, ",") + `]}`)
	sum := surface.Summarize(args, contracts.MaxAuditSummaryBytes)
	if !json.Valid(sum) || len(sum) > contracts.MaxAuditSummaryBytes {
		t.Fatalf("summary of %d bytes is %d bytes", len(args), len(sum))
	}
	if !strings.Contains(string(sum), `"deckId":"d1"`) || !strings.Contains(string(sum), "omitted") {
		t.Fatalf("summary lost what matters: %s", sum)
	}
	if s := surface.Summarize(json.RawMessage(`{"name":"x"}`), 2048); string(s) != `{"name":"x"}` {
		t.Fatalf("a small input must be kept whole: %s", s)
	}
}

// TestRenderArguments: exactly one of sessionId and deckId; a deck id is a
// write that obeys the exposure of start_study_session too.
func TestRenderArguments(t *testing.T) {
	f := newFixture(t)
	settings := contracts.ExposureSettings{Toolsets: []string{contracts.ToolsetsAll}}
	f.svc.EXPECT().Exposure(gomock.Any()).DoAndReturn(func(context.Context) (contracts.ExposureSettings, error) { return settings, nil }).AnyTimes()
	ctx := as(contracts.AllScopes...)
	for _, args := range []string{`{}`, `{"sessionId":"s1","deckId":"d1"}`} {
		res, rerr := f.call(ctx, contracts.ToolRenderStudySession, json.RawMessage(args))
		if rerr != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "exactly one of sessionId, deckId") {
			t.Fatalf("%s: %+v %+v", args, res, rerr)
		}
	}
	settings.DisabledTools = []string{contracts.ToolStartStudySession}
	res, rerr := f.call(ctx, contracts.ToolRenderStudySession, json.RawMessage(`{"deckId":"d1"}`))
	if rerr != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "switched off start_study_session") {
		t.Fatalf("deckId with start_study_session off: %+v %+v", res, rerr)
	}
}

// TestAuditOutlivesCancellation: a caller that goes away during the
// mutation rolls its transaction back (a canceled transaction cannot
// commit); the failed call still gets its audit row written.
func TestAuditOutlivesCancellation(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	ctx, cancel := context.WithCancel(as(contracts.AllScopes...))
	ex := contracts.Examples()[contracts.ToolCreateDeck]
	f.ctrl.RecordCall(f.svc, "CreateDeck", gomock.Any(), gomock.Any()).DoAndReturn(
		func(context.Context, contracts.CreateDeckArgs) (contracts.Deck, error) {
			cancel() // the client hangs up once the deck is written, before the commit
			return ex.Result.(contracts.Deck), nil
		})
	var rows []contracts.AuditEvent
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, e contracts.AuditEvent) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows = append(rows, e)
		return nil
	}).Times(2)
	if _, rerr := f.call(ctx, contracts.ToolCreateDeck, ex.Args); rerr == nil || !strings.HasPrefix(rerr.Message, "Temporarily unavailable") {
		t.Fatalf("a call canceled before its commit: %+v, want it to fail as unavailable", rerr)
	}
	if len(rows) != 1 || rows[0].Outcome != contracts.AuditError || rows[0].ErrorKind != contracts.KindUnavailable {
		t.Fatalf("audit rows %+v, want one failed row", rows)
	}
}

// TestAuditRowInTheMutationsTransaction: a successful mutation writes its
// row inside its transaction (one commit); when that commit fails, nothing
// was applied: the call fails and its row is written apart, as a failure.
func TestAuditRowInTheMutationsTransaction(t *testing.T) {
	ctrl := gomock.NewController(t)
	svc := mock.NewMockMcpServices(ctrl)
	srv, err := surface.NewServer(svc, surface.Config{BaseURL: "https://tb.example", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctrl: ctrl, svc: svc, srv: srv, logs: &bytes.Buffer{}}
	f.exposure(contracts.ExposureSettings{})
	lost := &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is unreachable", Err: errors.New("commit: connection reset")}
	svc.EXPECT().Atomic(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
		if err := fn(context.WithValue(ctx, txKey{}, true)); err != nil {
			return err
		}
		return lost // the commit fails
	})
	ex := contracts.Examples()[contracts.ToolCreateDeck]
	f.expectTool(contracts.ToolCreateDeck, ex.Result, nil)
	var inside, apart []contracts.AuditEvent
	svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, e contracts.AuditEvent) error {
		if inTx(ctx) {
			inside = append(inside, e)
		} else {
			apart = append(apart, e)
		}
		return nil
	}).Times(2)
	_, rerr := f.call(as(contracts.AllScopes...), contracts.ToolCreateDeck, ex.Args)
	if rerr == nil || !strings.HasPrefix(rerr.Message, "Temporarily unavailable") {
		t.Fatalf("a failed commit: %+v, want the call to fail as unavailable", rerr)
	}
	if len(inside) != 1 || inside[0].Outcome != contracts.AuditOK {
		t.Errorf("rows in the transaction %+v, want the success row (rolled back with it)", inside)
	}
	if len(apart) != 1 || apart[0].Outcome != contracts.AuditError || apart[0].ErrorKind != contracts.KindUnavailable || len(apart[0].AffectedIDs) != 0 {
		t.Errorf("rows apart %+v, want one failed row with no affected ids", apart)
	}
}

// TestDryRunWritesNoAuditRow: a call with "dryRun": true reaches the
// service with DryRun set, outside any transaction of the surface's, and
// writes no audit row (a WriteAudit would fail the test); "dryRun": false
// is an ordinary audited call.
func TestDryRunWritesNoAuditRow(t *testing.T) {
	f := newFixture(t)
	f.exposure(contracts.ExposureSettings{})
	var got contracts.UpdateCardsArgs
	f.svc.EXPECT().UpdateCards(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, a contracts.UpdateCardsArgs) (contracts.BulkResult, error) {
		if inTx(ctx) {
			t.Errorf("a dry run ran inside the surface's transaction")
		}
		got = a
		return contracts.BulkResult{Items: []contracts.ItemOutcome{{Status: contracts.OutcomeUpdated, ID: "c1"}}, Counts: map[string]int{"updated": 1}, DryRun: a.DryRun}, nil
	})
	res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolUpdateCards, json.RawMessage(`{"updates":[{"id":"c1","back":"b"}],"dryRun":true}`))
	if rerr != nil || res.IsError {
		t.Fatalf("%+v %+v", rerr, res)
	}
	if !got.DryRun {
		t.Errorf("the service got %+v, want DryRun", got)
	}
	f.expectTool(contracts.ToolUpdateCards, contracts.BulkResult{Items: []contracts.ItemOutcome{}, Counts: map[string]int{}}, nil)
	f.svc.EXPECT().WriteAudit(gomock.Any(), gomock.Any()).Return(nil)
	if res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolUpdateCards, json.RawMessage(`{"updates":[{"id":"c1","back":"b"}],"dryRun":false}`)); rerr != nil || res.IsError {
		t.Fatalf("%+v %+v", rerr, res)
	}
}
