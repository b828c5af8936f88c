package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Audit listing limits.
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 200
)

// AuditService records and lists what agents changed.
type AuditService struct{ *deps }

var _ ports.AuditService = (*AuditService)(nil)

// Record appends an event for the acting user. It forces UserID to that
// user, fills ID, At and the credential when empty, and bounds the input
// summary to contracts.MaxAuditSummaryBytes of valid JSON.
func (s *AuditService) Record(ctx context.Context, e contracts.AuditEvent) error {
	p, err := actor(ctx)
	if err != nil {
		return err
	}
	e.UserID = p.UserID
	if e.ID == "" {
		e.ID = s.ids.NewID()
	}
	if e.At.IsZero() {
		e.At = s.now()
	}
	if e.CredentialKind == "" {
		e.CredentialKind, e.CredentialID = p.CredentialKind, p.CredentialID
	}
	if e.AffectedIDs == nil {
		e.AffectedIDs = []string{}
	}
	e.InputSummary = boundSummary(e.InputSummary, contracts.MaxAuditSummaryBytes)
	return fail(s.store.Audit().AppendAudit(ctx, e))
}

// recordEvent appends an audit event the domain writes itself (a security
// event, or a web action that is no tool call) for p's user, through st:
// called inside the action's transaction, the event and the action commit
// together or not at all, so no security action goes unrecorded. An
// operator's command-line actions (CredentialLocal: `takhtabush keys
// create`, `make run`'s owner key) are the operator's, not the account's,
// and are not recorded in the account's trail.
func recordEvent(ctx context.Context, st ports.Stores, ids ports.IDSource, at time.Time, p contracts.Principal,
	name string, input any, affected ...string) error {
	if p.CredentialKind == contracts.CredentialLocal {
		return nil
	}
	info, ok := contracts.AuditEventByName(name)
	if !ok {
		return fail(fmt.Errorf("unknown audit event %q", name))
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return fail(err)
	}
	if affected == nil {
		affected = []string{}
	}
	e := contracts.AuditEvent{
		ID: ids.NewID(), UserID: p.UserID, CredentialKind: p.CredentialKind, CredentialID: p.CredentialID,
		Tool: name, Action: info.Action, InputSummary: boundSummary(raw, contracts.MaxAuditSummaryBytes),
		AffectedIDs: affected, Outcome: contracts.AuditOK, At: at,
	}
	return fail(st.Audit().AppendAudit(ctx, e))
}

// boundSummary returns raw when it is valid JSON of at most max bytes, and
// otherwise a JSON object that fits: {"truncated":true,"bytes":N,"prefix":"…"}.
func boundSummary(raw json.RawMessage, max int) json.RawMessage {
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

// List returns the acting user's events, newest first.
func (s *AuditService) List(ctx context.Context, f contracts.AuditFilter, cursor string, limit int) (contracts.Page[contracts.AuditEvent], error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	limit, err = pageLimit(limit, DefaultAuditPage, MaxAuditPage)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	before, err := decodeCursor(cursor)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	events, err := s.store.Audit().ListAudit(ctx, uid, f, before, limit+1)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, fail(err)
	}
	return page(events, limit, func(e contracts.AuditEvent) string { return e.ID }), nil
}
