package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

const auditCols = `id, user_id, credential_kind, credential_id, tool, action, input_summary, affected_ids, outcome, error_kind, request_id, at, operation_id`

// AppendAudit appends an event. Conflict on a duplicate id; not found when
// the user does not exist. The input summary is stored as given (callers
// bound it to contracts.MaxAuditSummaryBytes).
func (s auditStore) AppendAudit(ctx context.Context, e contracts.AuditEvent) error {
	var summary any
	if len(e.InputSummary) > 0 {
		summary = string(e.InputSummary)
	}
	_, err := s.exec(ctx, `INSERT INTO mcp_audit_events (`+auditCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		e.ID, e.UserID, string(e.CredentialKind), e.CredentialID, e.Tool, e.Action, summary, stringsJSON(e.AffectedIDs),
		string(e.Outcome), string(e.ErrorKind), e.RequestID, ms(e.At), e.OperationID)
	return s.fail(ctx, err, "append audit", failMsgs{unique: "an audit event with this id already exists", fk: "user not found"})
}

// ListAudit returns up to limit of a user's events matching f, newest
// (highest id) first, with ids below beforeID (from the newest when "").
func (s auditStore) ListAudit(ctx context.Context, userID string, f contracts.AuditFilter, beforeID string, limit int) ([]contracts.AuditEvent, error) {
	out := []contracts.AuditEvent{}
	if limit <= 0 {
		return out, nil
	}
	var a args
	q := `SELECT ` + auditCols + ` FROM mcp_audit_events WHERE user_id = ` + a.add(userID)
	if f.Tool != "" {
		q += ` AND tool = ` + a.add(f.Tool)
	}
	q += newestFirst(&a, f.CredentialID, f.Since, f.Until, beforeID, limit)
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list audit")
	}
	defer rows.Close()
	for rows.Next() {
		var e contracts.AuditEvent
		var kind, outcome, errKind, affected string
		var summary sql.NullString
		var at int64
		if err := rows.Scan(&e.ID, &e.UserID, &kind, &e.CredentialID, &e.Tool, &e.Action, &summary, &affected,
			&outcome, &errKind, &e.RequestID, &at, &e.OperationID); err != nil {
			return nil, s.s.wrap(ctx, err, "list audit")
		}
		if e.AffectedIDs, err = parseStrings(affected); err != nil {
			return nil, s.s.wrap(ctx, err, "list audit")
		}
		if summary.Valid {
			e.InputSummary = json.RawMessage(summary.String)
		}
		e.CredentialKind, e.Outcome, e.ErrorKind = contracts.CredentialKind(kind), contracts.AuditOutcome(outcome), contracts.ErrorKind(errKind)
		e.At = fromMs(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "list audit")
	}
	return out, nil
}

// newestFirst returns the end of a query of a user's rows, newest first:
// made with the credential (when not ""), at in [since, until) (each
// where set), with ids below beforeID (when not ""), limit rows.
func newestFirst(a *args, credentialID string, since, until time.Time, beforeID string, limit int) string {
	q := ""
	if credentialID != "" {
		q += ` AND credential_id = ` + a.add(credentialID)
	}
	if !since.IsZero() {
		q += ` AND at >= ` + a.add(ms(since))
	}
	if !until.IsZero() {
		q += ` AND at < ` + a.add(ms(until))
	}
	if beforeID != "" {
		q += ` AND id < ` + a.add(beforeID)
	}
	return q + ` ORDER BY id DESC LIMIT ` + a.add(limit)
}
