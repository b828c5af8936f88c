package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// undoStates reads which of the events' operations have change records,
// and how many of them are undone, in one read.
func (p *AccountPages) undoStates(r *http.Request, events []contracts.AuditEvent) (map[string]ports.OperationState, error) {
	var ops []string
	for _, e := range events {
		if e.OperationID != "" && e.Outcome == contracts.AuditOK {
			ops = append(ops, e.OperationID)
		}
	}
	if len(ops) == 0 || p.svc.Undo == nil {
		return map[string]ports.OperationState{}, nil
	}
	return p.svc.Undo.OperationStates(r.Context(), ops)
}

// undoState names a row's Undo state: "undoable", "undone", "too old"
// (what is left are reviews older than undo_changes takes back) or "".
func undoState(st ports.OperationState) string {
	switch {
	case st.Records == 0:
		return ""
	case st.Undone < st.Records && st.Records-st.Undone > st.TooOld:
		return "undoable"
	case st.Undone < st.Records:
		return "too old"
	default:
		return "undone"
	}
}

// undoArgs picks what to undo: one operation, or what a credential did
// since a day (YYYY-MM-DD, the start of that day in the person's day).
func undoArgs(op, credential, since string) (contracts.UndoChangesArgs, error) {
	if op != "" {
		return contracts.UndoChangesArgs{OperationIDs: []string{op}}, nil
	}
	if credential == "" || since == "" {
		return contracts.UndoChangesArgs{}, contracts.Errorf(contracts.KindInvalid, "choose a change to undo, or a key or app and a day to undo from")
	}
	day, err := contracts.ParseDateOrTime(since)
	if err != nil || !day.IsDate() {
		return contracts.UndoChangesArgs{}, contracts.Errorf(contracts.KindInvalid, "the day must look like 2026-12-01")
	}
	return contracts.UndoChangesArgs{CredentialID: credential, Since: &day}, nil
}

// undoPreview is the page that shows what undoing everything a key or
// app did since a day would do, before the person confirms it.
type undoPreview struct {
	Credential, Since, Who string
	Undone, Skipped        int
	Kinds                  []kindCount // undone items by kind
	First                  []contracts.UndoItem
	More                   bool // the undo reaches past one call's items
}

// kindCount is how many items of one kind an undo would undo.
type kindCount struct {
	Kind contracts.ChangeKind
	N    int
}

// previewUndo runs the undo of everything a credential did since a day
// as a dry run and shows its counts by kind and first items, with the
// form that does it.
func (p *AccountPages) previewUndo(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Undo changes", "audit"
	q := r.URL.Query()
	args, err := undoArgs("", q.Get("credential"), q.Get("since"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	args.DryRun = true
	res, err := p.svc.Undo.UndoChanges(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	pv := undoPreview{Credential: args.CredentialID, Since: q.Get("since"), Who: p.credentialName(r, args.CredentialID),
		Undone: res.Undone, Skipped: res.Skipped, More: res.NextCursor != ""}
	counts := map[contracts.ChangeKind]int{}
	for _, it := range res.Items {
		if it.Status == contracts.UndoUndone {
			if counts[it.Kind] == 0 {
				pv.Kinds = append(pv.Kinds, kindCount{Kind: it.Kind})
			}
			counts[it.Kind]++
		}
	}
	for i := range pv.Kinds {
		pv.Kinds[i].N = counts[pv.Kinds[i].Kind]
	}
	pv.First = res.Items[:min(len(res.Items), contracts.MaxPreviewChanges)]
	v.Data = pv
	p.site.Render(w, r, "audit-undo", v)
}

// credentialName names a key by its name and hint; other credentials by id.
func (p *AccountPages) credentialName(r *http.Request, id string) string {
	keys, err := p.svc.Keys.ListKeys(r.Context())
	if err == nil {
		for _, k := range keys {
			if k.ID == id {
				return "the key “" + k.Name + "” (…" + k.Hint + ")"
			}
		}
	}
	return id
}

// undoOperation undoes one operation of the audit trail, as undo_changes
// does, writes undo_changes' audit row, and goes back to the audit page,
// which says how many items were undone and skipped (and the undo's own
// row offers to undo the undo).
func (p *AccountPages) undoOperation(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Audit trail", "audit"
	args, err := undoArgs(r.PostFormValue("operation"), r.PostFormValue("credential"), r.PostFormValue("since"))
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	res, err := p.svc.Undo.UndoChanges(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	affected := make([]string, 0, len(res.Items))
	for _, it := range res.Items {
		if it.Status == contracts.UndoUndone && len(affected) < 100 {
			affected = append(affected, it.ID)
		}
	}
	p.site.Audited(r, p.svc.Audit, contracts.ToolUndoChanges, args, affected...)
	back := url.Values{"undone": {strconv.Itoa(res.Undone)}, "skipped": {strconv.Itoa(res.Skipped)}}
	SeeOther(w, r, "/audit?"+back.Encode())
}

// undoFlash says what an undo did, after its redirect (?undone=N&skipped=M).
func undoFlash(q url.Values) string {
	undone, err := strconv.Atoi(q.Get("undone"))
	if err != nil {
		return ""
	}
	msg := "Undone: " + plural(undone, "item", "items") + "."
	if skipped, _ := strconv.Atoi(q.Get("skipped")); skipped > 0 {
		msg += fmt.Sprintf(" Skipped: %d, changed since or gone.", skipped)
	}
	return msg + " The undo is the newest row: undo it to redo."
}
