package storetest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// change returns a new, unsaved change record of a user's operation.
func (f *fixture) change(userID, op, credentialID string, kind contracts.ChangeKind, item string, at time.Time) contracts.ChangeRecord {
	return contracts.ChangeRecord{ID: f.id("chg"), OperationID: op, UserID: userID, CredentialKind: contracts.CredentialAPIKey,
		CredentialID: credentialID, Kind: kind, ItemID: item, Version: 3, Prev: json.RawMessage(`{"front":"old"}`),
		At: at, ExpiresAt: at.Add(contracts.ChangeTTL)}
}

// changeIDs returns the ids of change records.
func changeIDs(rs []contracts.ChangeRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// testChanges: records are appended in bulk (in a transaction, with the
// mutation) and read back as written, newest first, filtered by
// operation, credential, time and pending; marking them undone counts only
// those not undone yet; operation states count both; another user's
// records are never read, marked or counted; an unknown user is not_found
// and a taken id a conflict.
func testChanges(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	c := f.s.Changes()
	t0 := f.now
	r1 := f.change(a, "op-1", "key-1", contracts.ChangeCardUpdate, "crd-1", t0)
	r2 := f.change(a, "op-1", "key-1", contracts.ChangeCardUpdate, "crd-2", t0)
	r3 := f.change(a, "op-2", "key-2", contracts.ChangeCardAdd, "crd-3", t0.Add(time.Minute))
	r3.Prev, r3.Version = nil, 0
	r4 := f.change(a, "op-3", "key-1", contracts.ChangeSettingsUpdate, "settings", t0.Add(2*time.Minute))
	rb := f.change(b, "op-1", "key-1", contracts.ChangeCardUpdate, "crd-9", t0)
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		if err := tx.Changes().AppendChanges(f.ctx, a, []contracts.ChangeRecord{r1, r2, r3}); err != nil {
			return err
		}
		return tx.Changes().AppendChanges(f.ctx, a, nil)
	}))
	r4.UserID = b // forced to the user the call names
	must(t, c.AppendChanges(f.ctx, a, []contracts.ChangeRecord{r4}))
	r4.UserID = a
	must(t, c.AppendChanges(f.ctx, b, []contracts.ChangeRecord{rb}))
	wantKind(t, c.AppendChanges(f.ctx, a, []contracts.ChangeRecord{r1}), contracts.KindConflict, "AppendChanges with a taken id")
	wantKind(t, c.AppendChanges(f.ctx, "usr-nobody", []contracts.ChangeRecord{f.change("usr-nobody", "op", "", contracts.ChangeCardAdd, "x", t0)}),
		contracts.KindNotFound, "AppendChanges of an unknown user")

	all, err := c.ListChanges(f.ctx, a, contracts.ChangeFilter{}, "", 10)
	must(t, err)
	sameIDs(t, changeIDs(all), []string{r4.ID, r3.ID, r2.ID, r1.ID}, "ListChanges, newest first, the user's only")
	for i, want := range []contracts.ChangeRecord{r4, r3, r2, r1} {
		if i < len(all) && !reflect.DeepEqual(normChange(all[i]), normChange(want)) {
			t.Errorf("ListChanges entry %d:\n got %+v\nwant %+v", i, normChange(all[i]), normChange(want))
		}
	}
	for _, tc := range []struct {
		name   string
		f      contracts.ChangeFilter
		before string
		want   []string
	}{
		{"by operation", contracts.ChangeFilter{OperationIDs: []string{"op-1"}}, "", []string{r2.ID, r1.ID}},
		{"by operations", contracts.ChangeFilter{OperationIDs: []string{"op-3", "op-1", "op-3"}}, "", []string{r4.ID, r2.ID, r1.ID}},
		{"by credential", contracts.ChangeFilter{CredentialID: "key-1"}, "", []string{r4.ID, r2.ID, r1.ID}},
		{"since", contracts.ChangeFilter{Since: t0.Add(time.Minute)}, "", []string{r4.ID, r3.ID}},
		{"until", contracts.ChangeFilter{Until: t0.Add(time.Minute)}, "", []string{r2.ID, r1.ID}},
		{"credential and range", contracts.ChangeFilter{CredentialID: "key-1", Since: t0, Until: t0.Add(2 * time.Minute)}, "", []string{r2.ID, r1.ID}},
		{"before an id", contracts.ChangeFilter{}, r3.ID, []string{r2.ID, r1.ID}},
	} {
		got, err := c.ListChanges(f.ctx, a, tc.f, tc.before, 10)
		must(t, err)
		sameIDs(t, changeIDs(got), tc.want, "ListChanges "+tc.name)
	}
	got, err := c.ListChanges(f.ctx, a, contracts.ChangeFilter{}, "", 2)
	must(t, err)
	sameIDs(t, changeIDs(got), []string{r4.ID, r3.ID}, "ListChanges limited to 2")
	got, err = c.ListChanges(f.ctx, a, contracts.ChangeFilter{}, "", 0)
	must(t, err)
	sameIDs(t, changeIDs(got), nil, "ListChanges limit 0")

	// Marking: only the user's, only once.
	n, err := c.MarkUndone(f.ctx, a, []string{r1.ID, r2.ID, rb.ID}, "undo-1")
	must(t, err)
	if n != 2 {
		t.Errorf("MarkUndone marked %d records, want 2 (the other user's is left)", n)
	}
	n, err = c.MarkUndone(f.ctx, a, []string{r1.ID, r3.ID}, "undo-2")
	must(t, err)
	if n != 1 {
		t.Errorf("MarkUndone of one undone and one pending record marked %d, want 1", n)
	}
	got, err = c.ListChanges(f.ctx, a, contracts.ChangeFilter{OperationIDs: []string{"op-1"}}, "", 10)
	must(t, err)
	if len(got) != 2 || got[0].UndoneBy != "undo-1" || got[1].UndoneBy != "undo-1" {
		t.Errorf("op-1's records after the undo: %+v, want both undone by undo-1", got)
	}
	got, err = c.ListChanges(f.ctx, a, contracts.ChangeFilter{Pending: true}, "", 10)
	must(t, err)
	sameIDs(t, changeIDs(got), []string{r4.ID}, "ListChanges pending")
	got, err = c.ListChanges(f.ctx, b, contracts.ChangeFilter{Pending: true}, "", 10)
	must(t, err)
	sameIDs(t, changeIDs(got), []string{rb.ID}, "the other user's record stays pending")

	states, err := c.OperationStates(f.ctx, a, []string{"op-1", "op-2", "op-3", "op-none"}, f.now)
	must(t, err)
	want := map[string]ports.OperationState{"op-1": {Records: 2, Undone: 2}, "op-2": {Records: 1, Undone: 1}, "op-3": {Records: 1}}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("OperationStates = %+v, want %+v", states, want)
	}
	states, err = c.OperationStates(f.ctx, b, []string{"op-1", "op-3"}, f.now)
	must(t, err)
	if !reflect.DeepEqual(states, map[string]ports.OperationState{"op-1": {Records: 1}}) {
		t.Errorf("the other user's OperationStates = %+v, want op-1 with its one record", states)
	}

	// A rolled-back mutation leaves no record.
	rolled := f.change(a, "op-4", "key-1", contracts.ChangeCardUpdate, "crd-1", t0)
	_ = f.s.InTx(f.ctx, func(tx ports.Stores) error {
		must(t, tx.Changes().AppendChanges(f.ctx, a, []contracts.ChangeRecord{rolled}))
		return contracts.Errorf(contracts.KindInvalid, "the mutation failed")
	})
	got, err = c.ListChanges(f.ctx, a, contracts.ChangeFilter{OperationIDs: []string{"op-4"}}, "", 10)
	must(t, err)
	sameIDs(t, changeIDs(got), nil, "records of a rolled-back transaction")

	// A bulk call's thousand and more records are kept whole.
	bulk := make([]contracts.ChangeRecord, 1001)
	for i := range bulk {
		bulk[i] = f.change(a, "op-5", "key-1", contracts.ChangeCardUpdate, f.id("crd"), t0.Add(time.Hour))
	}
	must(t, c.AppendChanges(f.ctx, a, bulk))
	states, err = c.OperationStates(f.ctx, a, []string{"op-5"}, f.now)
	must(t, err)
	if states["op-5"].Records != len(bulk) {
		t.Errorf("a bulk append of %d records kept %d", len(bulk), states["op-5"].Records)
	}

	// One mutation's records (one statement) read back byte for byte,
	// whatever their items and previous values hold.
	odd := []contracts.ChangeRecord{
		f.change(a, "op-6", "key-1", contracts.ChangeCardUpdate, "crd \"6\" \\ é\t\x01", t0),
		f.change(a, "op-6", "key-1", contracts.ChangeNoteUpdate, "日本", t0),
	}
	odd[0].Prev = json.RawMessage(`{"back":"a \"q\" \\ \u003c é\n 日本","tags":["x","<&>"],"n":-1.5e+21}`)
	odd[1].Prev, odd[1].Version = nil, 0
	must(t, c.AppendChanges(f.ctx, a, odd))
	got, err = c.ListChanges(f.ctx, a, contracts.ChangeFilter{OperationIDs: []string{"op-6"}}, "", 10)
	must(t, err)
	sameIDs(t, changeIDs(got), []string{odd[1].ID, odd[0].ID}, "ListChanges of one mutation's odd records")
	for i, want := range []contracts.ChangeRecord{odd[1], odd[0]} {
		if i < len(got) && !reflect.DeepEqual(normChange(got[i]), normChange(want)) {
			t.Errorf("odd record %d:\n got %+v\nwant %+v", i, normChange(got[i]), normChange(want))
		}
	}
}

// normChange normalises a change record for comparison.
func normChange(r contracts.ChangeRecord) contracts.ChangeRecord {
	r.At, r.ExpiresAt = ms(r.At), ms(r.ExpiresAt)
	if len(r.Prev) == 0 {
		r.Prev = nil
	}
	return r
}
