package storetest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// event returns a new audit event of a user.
func (f *fixture) event(userID, tool, credentialID string, at time.Time) contracts.AuditEvent {
	return contracts.AuditEvent{ID: f.id("aud"), UserID: userID, CredentialKind: contracts.CredentialAPIKey, CredentialID: credentialID,
		Tool: tool, Action: tool + ".done", InputSummary: json.RawMessage(`{"deckId":"d1","cards":3}`), AffectedIDs: []string{"x1", "x2"},
		Outcome: contracts.AuditOK, RequestID: "req-" + itoa(int(f.seq.Load())), OperationID: "op-" + itoa(int(f.seq.Load())), At: at}
}

// normEvent normalises an event for comparison.
func normEvent(e contracts.AuditEvent) contracts.AuditEvent {
	e.At = ms(e.At)
	if e.AffectedIDs == nil {
		e.AffectedIDs = []string{}
	}
	if len(e.InputSummary) > 0 {
		var v any
		if json.Unmarshal(e.InputSummary, &v) == nil {
			e.InputSummary, _ = json.Marshal(v)
		}
	} else {
		e.InputSummary = nil
	}
	return e
}

// eventIDs returns the ids of events.
func eventIDs(es []contracts.AuditEvent) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func testAudit(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	au := f.s.Audit()
	e1 := f.event(a, "add_cards", "key-1", f.now)
	e2 := f.event(a, "delete_deck", "key-2", f.now.Add(time.Second))
	e2.Outcome, e2.ErrorKind, e2.AffectedIDs, e2.InputSummary = contracts.AuditError, contracts.KindNotFound, nil, nil
	e3 := f.event(a, "add_cards", "key-2", f.now.Add(2*time.Second))
	eb := f.event(b, "add_cards", "key-1", f.now.Add(3*time.Second))
	for _, e := range []contracts.AuditEvent{e1, e2, e3, eb} {
		must(t, au.AppendAudit(f.ctx, e))
	}
	wantKind(t, au.AppendAudit(f.ctx, e1), contracts.KindConflict, "AppendAudit with a taken id")

	got, err := au.ListAudit(f.ctx, a, contracts.AuditFilter{}, "", 10)
	must(t, err)
	sameIDs(t, eventIDs(got), []string{e3.ID, e2.ID, e1.ID}, "ListAudit, newest first, the user's only")
	for i, want := range []contracts.AuditEvent{e3, e2, e1} {
		if i < len(got) && !reflect.DeepEqual(normEvent(got[i]), normEvent(want)) {
			t.Errorf("ListAudit entry %d:\n got %+v\nwant %+v", i, normEvent(got[i]), normEvent(want))
		}
	}
	got, err = au.ListAudit(f.ctx, a, contracts.AuditFilter{Tool: "add_cards"}, "", 10)
	must(t, err)
	sameIDs(t, eventIDs(got), []string{e3.ID, e1.ID}, "ListAudit by tool")
	got, err = au.ListAudit(f.ctx, a, contracts.AuditFilter{CredentialID: "key-2"}, "", 10)
	must(t, err)
	sameIDs(t, eventIDs(got), []string{e3.ID, e2.ID}, "ListAudit by credential")
	got, err = au.ListAudit(f.ctx, a, contracts.AuditFilter{Tool: "add_cards", CredentialID: "key-1"}, "", 10)
	must(t, err)
	sameIDs(t, eventIDs(got), []string{e1.ID}, "ListAudit by tool and credential")
	got, err = au.ListAudit(f.ctx, b, contracts.AuditFilter{}, "", 10)
	must(t, err)
	sameIDs(t, eventIDs(got), []string{eb.ID}, "ListAudit of the other user")
	got, err = au.ListAudit(f.ctx, b, contracts.AuditFilter{}, e3.ID, 10)
	must(t, err)
	sameIDs(t, eventIDs(got), nil, "ListAudit of the other user before a's newest event")
}

func testAuditPaging(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	var want []string
	for i := range 12 {
		tool := "add_cards"
		if i%3 == 0 {
			tool = "update_deck"
		}
		e := f.event(a, tool, "key-1", f.now.Add(time.Duration(i)*time.Second))
		must(t, f.s.Audit().AppendAudit(f.ctx, e))
		want = append([]string{e.ID}, want...)
		must(t, f.s.Audit().AppendAudit(f.ctx, f.event(b, tool, "key-1", f.now)))
	}
	page := func(flt contracts.AuditFilter, size int) []string {
		var got []string
		before := ""
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("ListAudit paging does not end")
			}
			res, err := f.s.Audit().ListAudit(f.ctx, a, flt, before, size)
			must(t, err)
			if len(res) > size {
				t.Fatalf("ListAudit returned %d events, limit %d", len(res), size)
			}
			if len(res) == 0 {
				return got
			}
			got = append(got, eventIDs(res)...)
			before = res[len(res)-1].ID
		}
	}
	sameIDs(t, page(contracts.AuditFilter{}, 5), want, "ListAudit pages cover every event once, newest first")
	var updates []string
	for i, id := range want {
		if (11-i)%3 == 0 {
			updates = append(updates, id)
		}
	}
	sameIDs(t, page(contracts.AuditFilter{Tool: "update_deck"}, 2), updates, "ListAudit pages by tool")
	// want is newest first: events i = 11..0 at now+i seconds. Since is
	// inclusive, Until exclusive.
	window := contracts.AuditFilter{Since: f.now.Add(3 * time.Second), Until: f.now.Add(7 * time.Second)}
	sameIDs(t, page(window, 3), want[5:9], "ListAudit pages within [Since, Until)")
	sameIDs(t, page(contracts.AuditFilter{Since: f.now.Add(10 * time.Second)}, 5), want[:2], "ListAudit since a time")
	sameIDs(t, page(contracts.AuditFilter{Until: f.now.Add(2 * time.Second), Tool: "add_cards"}, 5), want[10:11], "ListAudit until a time, by tool")
}
