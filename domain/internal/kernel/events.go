package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// RecordEvent appends an audit event the domain writes itself (a security
// event, or a web action that is no tool call) for p's user, through st:
// called inside the action's transaction, the event and the action commit
// together or not at all, so no security action goes unrecorded. An
// operator's command-line actions (CredentialLocal: `takhtabush keys
// create`, `make run`'s owner key) are the operator's, not the account's,
// and are not recorded in the account's trail.
func RecordEvent(ctx context.Context, st ports.Stores, ids ports.IDSource, at time.Time, p contracts.Principal,
	name string, input any, affected ...string) error {
	return recordEvent(ctx, st, ids, at, p, "", name, input, affected)
}

// RecordOperation is RecordEvent for an event that is an operation of its
// own (a job's end): its row carries the operation id in ctx, which the
// operation's change records share, so the audit page offers its Undo.
func RecordOperation(ctx context.Context, st ports.Stores, ids ports.IDSource, at time.Time, p contracts.Principal,
	name string, input any, affected ...string) error {
	op, _ := contracts.OperationIDFrom(ctx)
	return recordEvent(ctx, st, ids, at, p, op, name, input, affected)
}

func recordEvent(ctx context.Context, st ports.Stores, ids ports.IDSource, at time.Time, p contracts.Principal,
	op, name string, input any, affected []string) error {
	if p.CredentialKind == contracts.CredentialLocal {
		return nil
	}
	info, ok := contracts.AuditEventByName(name)
	if !ok {
		return Fail(fmt.Errorf("unknown audit event %q", name))
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return Fail(err)
	}
	if affected == nil {
		affected = []string{}
	}
	e := contracts.AuditEvent{
		ID: ids.NewID(), UserID: p.UserID, CredentialKind: p.CredentialKind, CredentialID: p.CredentialID,
		Tool: name, Action: info.Action, InputSummary: BoundSummary(raw, contracts.MaxAuditSummaryBytes),
		AffectedIDs: affected, Outcome: contracts.AuditOK, At: at, OperationID: op,
	}
	return Fail(st.Audit().AppendAudit(ctx, e))
}

// BoundSummary returns raw when it is valid JSON of at most max bytes, and
// otherwise a JSON object that fits: {"truncated":true,"bytes":N,"prefix":"…"}.
func BoundSummary(raw json.RawMessage, max int) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	if len(raw) <= max && json.Valid(raw) {
		return raw
	}
	type cut struct {
		Truncated bool   `json:"truncated"`
		Bytes     int    `json:"bytes"`
		Prefix    string `json:"prefix"`
	}
	prefix := string(raw)
	if len(prefix) > max {
		prefix = prefix[:max]
	}
	for {
		prefix = trimToRune(prefix)
		b, err := json.Marshal(cut{true, len(raw), prefix})
		if err == nil && len(b) <= max {
			return b
		}
		if prefix == "" {
			return json.RawMessage(`{"truncated":true}`)
		}
		// Escaping grows the text; cut a quarter more and retry.
		prefix = prefix[:len(prefix)*3/4]
	}
}

// trimToRune drops a trailing partial UTF-8 sequence and invalid bytes.
func trimToRune(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
